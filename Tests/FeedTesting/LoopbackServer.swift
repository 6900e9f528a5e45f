import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (a free port) for tests, with byte-level control.
///
/// Each connection gets its own thread that reads requests in a keep-alive loop and hands each one
/// to `handler` together with the connection, which can answer properly (`respond`), send raw
/// bytes, stall, or close. The server counts connections, requests and the peak number of
/// requests in progress, so tests can check keep-alive and concurrency caps.
public final class LoopbackServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    public typealias Handler = @Sendable (Request, Connection) -> Void

    private struct Stats: ~Copyable {
        var connections = 0
        var requests: [Request] = []
        var inFlight = 0
        var peakInFlight = 0
        var openFDs: Set<Int32> = []
        var disconnects: [ContinuousClock.Instant] = []
        var isStopped = false
    }

    public let port: UInt16
    private let listener: Int32
    private let stats = Mutex(Stats())
    private let handler: Handler

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var connectionCount: Int { stats.withLock { $0.connections } }
    public var requests: [Request] { stats.withLock { $0.requests } }
    public var peakInFlight: Int { stats.withLock { $0.peakInFlight } }
    public var disconnects: [ContinuousClock.Instant] { stats.withLock { $0.disconnects } }

    public init(handler: @escaping Handler) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw ServerError("bind/listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        // The accept loop holds the server weakly: a server the test has let go stops (its
        // deinit shuts the listener down, which ends the wait in accept). Held strongly, every
        // server of a run lived to its end, with its thread and its socket (300 of each).
        let thread = Thread { [weak self] in Self.acceptLoop(fd, server: { self }) }
        thread.start()
    }

    /// Stops accepting and closes every open connection; once (the listener's number is the
    /// accept loop's to close, and may belong to another socket after that).
    public func stop() {
        stats.withLock { stats in
            if !stats.isStopped { shutdown(listener, Int32(SHUT_RDWR)) }
            stats.isStopped = true
            // Under the lock: a connection's thread removes its descriptor before closing it.
            for fd in stats.openFDs { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        stop()
    }

    /// Accepts until the listener is shut down, then closes it: here, not in deinit, so that its
    /// number cannot be reused by another socket while this loop may still call accept on it.
    private static func acceptLoop(_ listener: Int32, server: () -> LoopbackServer?) {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            guard let server = server() else {
                close(client)
                return
            }
            server.took(client)
        }
    }

    /// Serves an accepted connection on a thread of its own (which holds the server while it
    /// serves).
    private func took(_ client: Int32) {
        stats.withLock {
            $0.connections += 1
            $0.openFDs.insert(client)
        }
        let connection = Connection(fd: client)
        let thread = Thread { [self] in serve(connection) }
        thread.start()
    }

    private func serve(_ connection: Connection) {
        defer {
            stats.withLock {
                $0.openFDs.remove(connection.fd)
                $0.disconnects.append(.now)
            }
            close(connection.fd)
        }
        while !connection.isClosed, let request = connection.readRequest() {
            stats.withLock {
                $0.requests.append(request)
                $0.inFlight += 1
                $0.peakInFlight = max($0.peakInFlight, $0.inFlight)
            }
            handler(request, connection)
            stats.withLock { $0.inFlight -= 1 }
        }
    }

    public struct ServerError: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}

/// One accepted connection, used from its own thread only.
public final class Connection: Sendable {
    public let fd: Int32
    private let buffered = Mutex<[UInt8]>([])
    private let closed = Mutex(false)

    public init(fd: Int32) { self.fd = fd }

    public var isClosed: Bool { closed.withLock { $0 } }

    /// Reads up to the end of the next request head; nil when the peer closed.
    public func readRequest() -> LoopbackServer.Request? {
        var data = buffered.withLock { $0 }
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = data.firstRange(of: terminator) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                buffered.withLock { $0 = Array(data[end.upperBound...]) }
                var lines = head.components(separatedBy: "\r\n")
                let parts = lines.removeFirst().split(separator: " ")
                guard parts.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let name = line[..<colon].lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    headers[name] = headers[name].map { "\($0), \(value)" } ?? value
                }
                return .init(method: String(parts[0]), path: String(parts[1]), headers: headers)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            data.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends a complete response with `Content-Length`.
    public func respond(
        _ status: Int, headers: [(String, String)] = [], body: [UInt8] = [], reason: String = "OK"
    ) {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        send(Array(head.utf8) + body)
    }

    public func respond(_ status: Int, headers: [(String, String)] = [], text: String) {
        respond(status, headers: headers, body: Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return }
            offset += sent
        }
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Waits until the peer closes (or `limit` passes), reading and dropping anything it sends.
    public func waitForPeerClose(limit: Duration = .seconds(10)) {
        var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if poll(&pollFD, 1, 20) > 0 {
                var scratch = [UInt8](repeating: 0, count: 512)
                if recv(fd, &scratch, scratch.count, 0) <= 0 { break }
            }
        }
        close()
    }

    /// Closes this connection after the current handler returns.
    public func close() {
        closed.withLock { $0 = true }
        shutdown(fd, Int32(SHUT_RDWR))
    }
}
