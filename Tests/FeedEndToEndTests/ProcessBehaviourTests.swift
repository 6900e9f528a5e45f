import FeedCore
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// What the process does around the data: signals, secrets, logs.
@Suite("feedcli as a process", .serialized, .timeLimit(.minutes(3)))
struct ProcessBehaviourTests {
    let state = temporaryStorePath()

    @Test func ctrlCAbortsTheRequestExits130AndLeavesTheStore() async throws {
        let requested = TestSignal()
        let server = try LoopbackServer { _, connection in
            requested.signal()
            // Held until the client goes: a bound against a hang, longer than a loaded machine
            // may take to send the SIGINT (a server that closed first made it 76, not 130).
            connection.waitForPeerClose(limit: .seconds(120))
        }
        #expect(
            try await Feedcli.run([
                "feeds", "add", "slow", server.baseURL + "/posts", "--kind", "indexed", "--state", state,
            ]).status == 0)
        let before = try FeedStore.open(at: state).feed(named: "slow")
        let running = try Feedcli.start(["next", "slow", "--state", state])
        #expect(await requested.wait(seconds: 10))
        // The server never answers: an exit now can only be the interruption's.
        kill(running.process.processIdentifier, SIGINT)
        let run = await running.finish()
        #expect(run.status == 130)
        #expect(run.stdout.isEmpty)
        #expect(try FeedStore.open(at: state).feed(named: "slow") == before, "the store is as it was")
    }

    @Test func theBearerTokenIsSentButNeverStoredPrintedOrLogged() async throws {
        let secret = "s3cr3t-token-value"
        let server = try LoopbackServer { request, connection in
            guard request.header("Authorization") == "Bearer \(secret)" else {
                return connection.respond(401, text: "{}")
            }
            connection.respond(200, text: #"{"userId":1,"id":1,"title":"t","body":"b"}"#)
        }
        _ = try await Feedcli.run([
            "feeds", "add", "private", server.baseURL + "/posts", "--kind", "indexed",
            "--token-env", "PRIVATE_TOKEN", "--state", state,
        ])
        let denied = try await Feedcli.run(["next", "private", "--state", state])
        #expect(denied.status == 78, "the feed's token variable is unset: a configuration error")
        #expect(denied.stderr.contains("$PRIVATE_TOKEN, which is not set"))
        #expect(server.requests.isEmpty, "before any request")
        let run = try await Feedcli.run(
            ["next", "private", "--state", state, "--verbose", "--json"],
            environment: ["PRIVATE_TOKEN": secret])
        #expect(run.status == 0)
        #expect(run.stderr.contains("GET \(server.baseURL)/posts/1 -> 200"), "--verbose logs the request")
        let status = try await Feedcli.run(["status", "--json", "--state", state])
        for text in [run.stdout, run.stderr, status.stdout] { #expect(!text.contains(secret)) }
        #expect(status.stdout.contains(#""token_env":"PRIVATE_TOKEN""#))
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: state + suffix) ?? Data()
            #expect(bytes.firstRange(of: Data(secret.utf8)) == nil)
        }
        let shared = try await Feedcli.run(
            ["next", "private", "--state", state], environment: ["FEEDCLI_TOKEN": secret])
        #expect(shared.status == 78, "a feed that names its variable does not fall back to FEEDCLI_TOKEN")
        let wrong = try await Feedcli.run(
            ["next", "private", "--state", state], environment: ["PRIVATE_TOKEN": "wrong"])
        #expect(wrong.status == 77)
    }

    /// Regression: transport failures were reported without the URL that failed.
    @Test func aRefusedConnectionIsTemporaryAndNamesTheURL() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let url = "http://127.0.0.1:\(refusing.port)/posts"
        _ = try await Feedcli.run(["feeds", "add", "gone", url, "--kind", "indexed", "--state", state])
        let run = try await Feedcli.run(["next", "gone", "--state", state, "--retries", "0"])
        #expect(run.status == 75)
        #expect(
            run.stderr.contains("cannot connect: ") && !run.stderr.contains("couldNotConnect")
                && run.stderr.contains("(\(url)/1)"))
    }

    @Test func aSyncKilledMidwayLeavesAStoreThatOpensWithWhatWasCommitted() async throws {
        let posts = try PostsServer(available: 100)
        posts.gate.hold(from: 31)
        _ = try await Feedcli.run(["feeds", "add", "p", posts.url, "--kind", "indexed", "--state", state])
        let running = try Feedcli.start(["sync", "p", "--jsonl", "--state", state])
        #expect(await posts.gate.waitForArrivals(31), "the run is past its thirtieth post, waiting on the server")
        kill(running.process.processIdentifier, SIGKILL)
        posts.gate.open()
        _ = await running.finish()
        let listed = try await Feedcli.run(["list", "p", "--jsonl", "--state", state])
        #expect(listed.status == 0)
        let ids = JSONLines.ids(listed.stdout)
        #expect(ids == (0..<ids.count).map { String($0 + 1) }, "a prefix, in order, no gaps")
        let resumed = try await Feedcli.run(["sync", "p", "--jsonl", "--state", state])
        #expect(resumed.status == 0)
        #expect(resumed.stdout.split(separator: "\n").count == 100 - ids.count, "the next run goes on where it stopped")
    }

    @Test func transportFailuresMapToTheContractsExitCodes() async throws {
        let server = try LoopbackServer { request, connection in
            switch request.path {
            case "/big/1": connection.respond(200, body: [UInt8](repeating: 32, count: 5000))
            case "/garbage/1":
                connection.send("nonsense\r\n\r\n")
                connection.close()
            case "/ftp/1": connection.respond(302, headers: [("Location", "ftp://127.0.0.1/x")], text: "")
            default: connection.respond(302, headers: [("Location", request.path)], text: "")
            }
        }
        let cases: [(String, Int32)] = [("big", 65), ("garbage", 76), ("ftp", 78), ("loop", 76)]
        for (name, code) in cases {
            _ = try await Feedcli.run([
                "feeds", "add", name, server.baseURL + "/" + name, "--kind", "indexed", "--state", state,
            ])
            let run = try await Feedcli.run(["next", name, "--state", state, "--retries", "0", "--max-size", "1000"])
            #expect(run.status == code, "\(name): \(run.stderr)")
        }
    }
}
