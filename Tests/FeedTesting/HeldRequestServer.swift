import Foundation

/// A loopback server that holds the requests for one path until the test calls `release()` (so
/// a run sits inside its fetch, holding its feed's lock, for exactly as long as the test needs),
/// and says when such a request has arrived; every answer is a one-item Graph page with an ETag.
public struct HeldRequestServer {
    public let server: LoopbackServer
    private let gate = RequestGate()

    public init(holding path: String, id: String = "x") throws {
        let gate = self.gate
        gate.hold(from: 1)
        server = try LoopbackServer { request, connection in
            if request.path == path { gate.arrive() }
            connection.respond(200, headers: [("ETag", "\"v1\"")], text: #"{"data":[{"id":"\#(id)"}],"paging":{}}"#)
        }
    }

    public var baseURL: String { server.baseURL }

    /// Whether a held request arrived within 20 seconds.
    public func waitForTheHeldRequest() async -> Bool { await gate.waitForArrivals(1) }

    /// Answers the held requests, and every later one at once.
    public func release() { gate.open() }
}
