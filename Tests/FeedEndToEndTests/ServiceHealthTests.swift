import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// A `follow` that runs as a service says what fails while it runs, not when it ends, and ends
/// with the state its feeds are in. The built `feedcli` against
/// `Fixtures/streams/stream_server.py`.
@Suite("A service tells: failures said as they happen", .serialized, .timeLimit(.minutes(3)))
struct ServiceHealthTests {
    let server: PythonServer
    let session = StoreSession()
    var base: String { server.base }

    init() async throws { server = try await PythonServer.streams() }

    @Test func aFeedWhoseTokenVariableIsMissingIsSaidAtOnceAndTheOthersGoOn() async throws {
        try await session.add("live", base + "/sse?count=3&hold=60", kind: "sse")
        try await session.add(
            "mast", base + "/sse?count=3&hold=60", kind: "sse", "--token-env", "FEEDCLI_TEST_UNSET_TOKEN")
        let started = Date()
        let follow = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--jsonl"]))
        #expect(
            await follow.waitForStderr(containing: "mast: failing (78, the feed's configuration cannot work)"),
            "said while it runs: \(follow.stderrSoFar)")
        #expect(Date().timeIntervalSince(started) < 10, "at once, not at the end")
        #expect(follow.process.isRunning, "the other feed goes on")
        follow.process.send(SIGTERM)
        let run = await follow.finish()
        #expect(JSONLines.ids(run.stdout) == ["1", "2", "3"], "\(run.stderr)")
        #expect(run.status == 78, "the feed still failing at the end gives the status")
        #expect(run.stderr.components(separatedBy: "mast: failing").count == 2, "said once: \(run.stderr)")
    }

    @Test func aStreamThatCannotConnectIsSaidOnceWhileItIsTriedAgain() async throws {
        let closed = try RefusingPort()
        try await session.add("down", "http://127.0.0.1:\(closed.port)/sse", kind: "sse")
        let run = try await session.run(["follow", "--max-time", "4s"])
        #expect(run.status == 75, "still failing at the end: \(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line, not one a retry: \(run.stderr)")
        #expect(lines.first?.hasPrefix("feedcli: down: failing (75, temporary: tried again): ") == true)
        let status = try await session.requireStatus("down")
        #expect((status["last_error"] as? String)?.isEmpty == false, "status shows it: \(status)")
    }

    /// A stream whose server takes the connection and never answers (neither the request nor
    /// the upgrade) is a timeout for `sync` as for `follow`: 75, recorded, said.
    @Test func aSyncOfAStreamWhoseServerNeverAnswersIsATimeout() async throws {
        let silent = try RefusingPort(listening: true)
        try await session.add("sse", "http://127.0.0.1:\(silent.port)/sse", kind: "sse")
        try await session.add("jet", "ws://127.0.0.1:\(silent.port)/subscribe", kind: "jetstream")
        for feed in ["sse", "jet"] {
            let run = try await session.run(["sync", feed, "--jsonl"])
            #expect(run.status == 75, "\(feed): \(run.stderr)")
            #expect(run.stderr.contains("timed out"), "\(feed): said: \(run.stderr)")
            let status = try await session.requireStatus(feed)
            #expect((status["last_error"] as? String)?.contains("timed out") == true, "recorded: \(status)")
        }
    }
}
