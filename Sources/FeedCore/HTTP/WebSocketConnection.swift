import CCurl
import FeedModel
import FoundationEssentials
import Glibc

/// One WebSocket connection: RFC 6455 over libcurl's connect-only mode, since Debian 12's libcurl
/// has no WebSocket API. curl makes the connection as for every request (TLS with certificates
/// verified, a proxy tunnel, its CA set-up); this sends the upgrade request over it, checks the
/// answer (`WebSocketHandshake`), then reads the server's frames (`WebSocketFraming`) and writes
/// the client's, masked. HTTP/1.1 is forced: curl would otherwise offer HTTP/2 over TLS, which
/// has no upgrade.
///
/// Threading: every call blocks (connecting, waiting for bytes) and uses the one curl handle, so
/// one thread at a time uses a connection, and a stream reads it on a thread of its own.
///
/// @unchecked Sendable invariant: a connection is handed from thread to thread, never used by
/// two at once (curl's rule for a handle: moving it between threads is fine); its owner
/// serializes every call.
package final class WebSocketConnection: @unchecked Sendable {
    /// The server's answer to the upgrade, when it did not agree (a status and its headers, for
    /// the exit codes a refused request has: 401/403, 404/410, 429 with `Retry-After`).
    package struct Refused: Error, Sendable {
        package var status: Int
        package var headers: [(name: String, value: String)]
        package var why: String
    }

    private let easy: UnsafeMutableRawPointer
    private var socket: curl_socket_t = -1
    private var framing: WebSocketFraming
    /// Events read with the answer's head, not yet handed out.
    private var pending: [WebSocketFraming.Event] = []
    private var random = SystemRandomNumberGenerator()
    /// Where reads land (one buffer for the connection's life, not one a read).
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// The longest answer head read (as for any response's headers).
    private static let maxHeadBytes = HTTPError.maxHeaderBytes

    /// Connects to `url` (`ws://` or `wss://`) and makes the opening handshake, sending `headers`
    /// (a token's `Authorization`, for the URL's own origin only: the caller's rule) as well.
    package init(
        url: String, headers: [(name: String, value: String)] = [], userAgent: String, connectTimeout: Duration,
        maxMessageSize: Int
    ) throws {
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss", let host = components.host, !host.isEmpty
        else {
            throw HTTPError(.invalidURL, message: "not a ws:// or wss:// URL: \(Redaction.maskingSecrets(in: url))")
        }
        components.scheme = scheme == "wss" ? "https" : "http"
        guard let curlURL = components.string, let handle = curl_easy_init() else {
            throw HTTPError(.other, message: "curl_easy_init failed")
        }
        easy = handle
        framing = WebSocketFraming(maxMessageSize: maxMessageSize)
        try check(feed_easy_setopt_string(easy, CURLOPT_URL, curlURL))
        try check(feed_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1))
        try check(feed_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1))
        try check(feed_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        try check(feed_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(feed_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1))
        try check(feed_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2))
        // A plain ws:// through an HTTP proxy is a tunnel (CONNECT), never a proxied GET.
        try check(feed_easy_setopt_long(easy, CURLOPT_HTTPPROXYTUNNEL, 1))
        try check(feed_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeout.milliseconds))
        try check(curl_easy_perform(easy))
        try check(feed_easy_getinfo_socket(easy, CURLINFO_ACTIVESOCKET, &socket))

        let handshake = WebSocketHandshake()
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        let hostHeader = (host.contains(":") ? "[\(host)]" : host) + (components.port.map { ":\($0)" } ?? "")
        var request = "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: \(userAgent)\r\n"
        for (name, value) in handshake.requestHeaders + headers { request += "\(name): \(value)\r\n" }
        try send(Array((request + "\r\n").utf8))

        let (status, answerHeaders, rest) = try readHead()
        if let why = handshake.refusal(status: status, headers: answerHeaders) {
            throw Refused(status: status, headers: answerHeaders, why: why)
        }
        pending = framing.parse(rest)
    }

    deinit {
        curl_easy_cleanup(easy)
    }

    /// The events of the bytes that arrive within `wait` (none when nothing came: the caller
    /// decides what silence means); a connection the server closed is `HTTPError(.connectionLost)`.
    package func receive(waitingUpTo wait: Duration) throws -> [WebSocketFraming.Event] {
        if !pending.isEmpty {
            defer { pending = [] }
            return pending
        }
        var waited = false
        while true {
            if let received = try read() {
                let events = framing.parse(buffer[..<received])
                if !events.isEmpty { return events }
                // Part of a frame: TLS may hold more that poll(2) cannot see, so read on first.
                continue
            }
            if waited { return [] }
            guard let readable = waitForBytes(milliseconds: Int32(clamping: wait.milliseconds)) else { return [] }
            waited = !readable
        }
    }

    /// One read: how many bytes curl had, or nil when it has none now (poll before asking
    /// again); a connection the server closed, or broke, throws.
    private func read() throws -> Int? {
        var received = 0
        let code = buffer.withUnsafeMutableBytes { curl_easy_recv(easy, $0.baseAddress, $0.count, &received) }
        switch code {
        case CURLE_OK where received == 0: throw HTTPError(.connectionLost, message: "the server closed the connection")
        case CURLE_OK: return received
        case CURLE_AGAIN: return nil
        default: throw HTTPError.from(curl: code, message: "")
        }
    }

    /// Waits up to `milliseconds` for the socket: nil when nothing came, else whether it is
    /// readable (false: an error or hang-up, which the next read reports).
    private func waitForBytes(milliseconds: Int32) -> Bool? {
        var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, milliseconds) > 0 else { return nil }
        return ready.revents & Int16(POLLIN) != 0
    }

    /// Sends one frame of the client's (masked with fresh bytes).
    package func send(_ opcode: WebSocketFraming.Opcode, payload: [UInt8]) throws {
        try send(WebSocketFraming.clientFrame(opcode, payload: payload, mask: mask()))
    }

    /// Sends a close frame with `code` and `reason`.
    package func close(code: UInt16, reason: String) throws {
        try send(WebSocketFraming.closeFrame(code: code, reason: reason, mask: mask()))
    }

    private func mask() -> [UInt8] {
        (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Writes `bytes` whole, waiting for room as the socket needs.
    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            var sent = 0
            let code = bytes[offset...].withUnsafeBytes { curl_easy_send(easy, $0.baseAddress, $0.count, &sent) }
            switch code {
            case CURLE_OK: offset += sent
            case CURLE_AGAIN:
                var room = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                _ = poll(&room, 1, 1000)
            default: throw HTTPError.from(curl: code, message: "")
            }
        }
    }

    /// Reads the answer's head: its status, headers, and the bytes after it (frames already).
    private func readHead() throws -> (Int, [(name: String, value: String)], [UInt8]) {
        var head: [UInt8] = []
        let end: [UInt8] = [13, 10, 13, 10]
        while true {
            if let range = head.firstRange(of: end) {
                let text = String(decoding: head[..<range.lowerBound], as: UTF8.self)
                var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines.isEmpty ? "" : lines.removeFirst()
                let parts = statusLine.split(separator: " ", maxSplits: 2)
                guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
                    throw HTTPError(.malformedReply, message: "the server's answer to the upgrade is not HTTP")
                }
                let headers = lines.compactMap { line -> (name: String, value: String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingWhitespace())
                }
                return (status, headers, Array(head[range.upperBound...]))
            }
            guard head.count < Self.maxHeadBytes else { throw HTTPError.headersTooLarge }
            if let received = try read() {
                head += buffer[..<received]
            } else if waitForBytes(milliseconds: 30_000) == nil {
                throw HTTPError(.timedOut, message: "no answer to the upgrade")
            }
        }
    }

    private func check(_ code: CURLcode) throws(HTTPError) {
        guard code == CURLE_OK else { throw HTTPError.from(curl: code, message: "") }
    }
}
