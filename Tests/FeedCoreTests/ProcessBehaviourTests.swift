import FeedCore
import Foundation
import Testing

/// What the process does around the data: signals, secrets, logs.
@Suite("feedcli as a process", .serialized)
struct ProcessBehaviourTests {
    let state = temporaryStorePath()

    @Test func ctrlCAbortsTheRequestExits130AndLeavesTheStore() throws {
        let requested = DispatchSemaphore(value: 0)
        let server = try LoopbackServer { _, connection in
            requested.signal()
            connection.waitForPeerClose()
        }
        #expect(try Feedcli.run(["feeds", "add", "slow", server.baseURL + "/posts", "--kind", "indexed", "--state", state]).status == 0)
        let before = try FeedStore.open(at: state).registration(named: "slow")
        let running = try Feedcli.start(["next", "slow", "--state", state])
        #expect(requested.wait(timeout: .now() + 10) == .success)
        let interruptedAt = ContinuousClock.now
        kill(running.process.processIdentifier, SIGINT)
        let run = running.finish()
        #expect(run.status == 130)
        #expect(ContinuousClock.now - interruptedAt < .seconds(1))
        #expect(run.stdout.isEmpty)
        #expect(try FeedStore.open(at: state).registration(named: "slow") == before, "the store is as it was")
    }

    @Test func theBearerTokenIsSentButNeverStoredPrintedOrLogged() throws {
        let secret = "s3cr3t-token-value"
        let server = try LoopbackServer { request, connection in
            guard request.header("Authorization") == "Bearer \(secret)" else { return connection.respond(401, text: "{}") }
            connection.respond(200, text: #"{"userId":1,"id":1,"title":"t","body":"b"}"#)
        }
        _ = try Feedcli.run(["feeds", "add", "private", server.baseURL + "/posts", "--kind", "indexed",
                             "--token-env", "PRIVATE_TOKEN", "--state", state])
        let denied = try Feedcli.run(["next", "private", "--state", state])
        #expect(denied.status == 77)
        let run = try Feedcli.run(["next", "private", "--state", state, "--verbose", "--json"],
                                  environment: ["PRIVATE_TOKEN": secret])
        #expect(run.status == 0)
        #expect(run.stderr.contains("GET \(server.baseURL)/posts/1 -> 200"), "--verbose logs the request")
        let status = try Feedcli.run(["status", "--json", "--state", state])
        for text in [run.stdout, run.stderr, status.stdout] { #expect(!text.contains(secret)) }
        #expect(status.stdout.contains(#""token_env":"PRIVATE_TOKEN""#))
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: state + suffix) ?? Data()
            #expect(bytes.firstRange(of: Data(secret.utf8)) == nil)
        }
        let shared = try Feedcli.run(["next", "private", "--state", state], environment: ["FEEDCLI_TOKEN": secret])
        #expect(shared.status == 77, "a feed that names its variable does not fall back to FEEDCLI_TOKEN")
    }
}
