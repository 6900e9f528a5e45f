import Foundation

/// A loopback server that holds the requests for one path for a while (so a run sits inside its
/// fetch, holding its feed's lock) and says when such a request has arrived; every answer is a
/// one-item Graph page with an ETag. Tests wait on `arrived` instead of sleeping and hoping.
struct HeldRequestServer {
    let server: LoopbackServer
    let arrived = DispatchSemaphore(value: 0)

    init(holding path: String, for seconds: Double = 1.5, id: String = "x") throws {
        let arrived = self.arrived
        server = try LoopbackServer { request, connection in
            if request.path == path {
                arrived.signal()
                Thread.sleep(forTimeInterval: seconds)
            }
            connection.respond(200, headers: [("ETag", "\"v1\"")], text: #"{"data":[{"id":"\#(id)"}],"paging":{}}"#)
        }
    }

    var baseURL: String { server.baseURL }

    /// Whether a held request arrived within 20 seconds.
    func waitForTheHeldRequest() -> Bool {
        arrived.wait(timeout: .now() + 20) == .success
    }
}
