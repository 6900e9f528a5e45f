import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port where a connection is refused, for as long as this value lives.
///
/// The port is bound on 127.0.0.1 and never listened on: the kernel answers a connection with a
/// reset (ECONNREFUSED) at once. It is bound without `SO_REUSEADDR`, which Linux needs on both
/// sockets for two to share a port, so no other server of the run (the loopback servers set it)
/// can be given this port while the test uses it.
///
/// It replaces "a server's port, just closed": that port went back to the kernel, which could
/// hand it to the next test's server at once. A PostgreSQL client that met such an HTTP server
/// waited for its answer until its connect timeout (CI of 2026-12-04: "timeout expired" after
/// 30 s where "Connection refused" was expected).
public final class RefusingPort: Sendable {
    public let port: UInt16
    private let socketDescriptor: Int32

    /// `listening`: the port listens and never accepts: the kernel completes each connection
    /// (into the backlog) and nothing ever answers it, a server that accepts and says nothing.
    public init(listening: Bool = false) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackServer.ServerError("socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            close(fd)
            throw LoopbackServer.ServerError("bind failed: errno \(errno)")
        }
        var named = sockaddr_in()
        var namedLength = length
        let got = withUnsafeMutablePointer(to: &named) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &namedLength) }
        }
        guard got == 0 else {
            close(fd)
            throw LoopbackServer.ServerError("getsockname failed: errno \(errno)")
        }
        port = UInt16(bigEndian: named.sin_port)
        socketDescriptor = fd
        if listening, listen(fd, 16) != 0 {
            close(fd)
            throw LoopbackServer.ServerError("listen failed: errno \(errno)")
        }
    }

    deinit {
        close(socketDescriptor)
    }
}
