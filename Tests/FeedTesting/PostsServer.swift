import FeedBase
import Foundation
import Synchronization

/// A loopback server in the shape of jsonplaceholder's `/posts/{n}`, from the real posts in
/// `Fixtures/posts/posts.json`. Serves the first `available` posts (404 `{}` past them), and can be
/// told to fail the next requests with a status; `gate` holds requests where a test needs them
/// held (never a sleep).
public final class PostsServer: Sendable {
    public let server: LoopbackServer
    private let state: Locked<(available: Int, failures: [Int])>
    public let gate = RequestGate()

    public var url: String { server.baseURL + "/posts" }

    public init(available: Int = 100) throws {
        let posts = try PostsServer.posts()
        let state = Locked((available: available, failures: [Int]()))
        self.state = state
        let gate = self.gate
        server = try LoopbackServer { request, connection in
            gate.arrive()
            let (available, failure) = state.withLock { state -> (Int, Int?) in
                (state.available, state.failures.isEmpty ? nil : state.failures.removeFirst())
            }
            if let failure { return connection.respond(failure, text: "{}") }
            let parts = request.path.split(separator: "/")
            guard parts.count == 2, parts[0] == "posts", let n = Int(parts[1]), n >= 1, n <= min(available, posts.count)
            else { return connection.respond(404, headers: [("Content-Type", "application/json")], text: "{}") }
            connection.respond(200, headers: [("Content-Type", "application/json")], body: posts[n - 1])
        }
    }

    public func setAvailable(_ n: Int) { state.withLock { $0.available = n } }
    public func failNext(_ statuses: Int...) { state.withLock { $0.failures += statuses } }

    /// Each post as jsonplaceholder sends it (pretty-printed, as json-server does).
    public static func posts() throws -> [[UInt8]] {
        let data = try Fixtures.data("posts/posts.json")
        guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return try array.map { post in
            Array(try JSONSerialization.data(withJSONObject: post, options: [.prettyPrinted, .sortedKeys]))
        }
    }
}
