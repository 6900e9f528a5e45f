import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// While a `follow` runs it owns the feeds it follows: a `sync` or a fetching `next` of one of
/// them from another process waits, then is busy (75) naming the follow, and takes nothing;
/// reading commands and a `next` of stored entries are never blocked. The built `feedcli`
/// against `Fixtures/streams/stream_server.py`.
@Suite("follow owns its feeds", .serialized, .timeLimit(.minutes(3)))
struct FollowOwnsItsFeedsTests {
    let server: PythonServer
    let session = StoreSession()
    var base: String { server.base }

    init() async throws { server = try await PythonServer.streams() }

    @Test func aSyncBesideAFollowOfItsFeedIsBusyNamingTheFollowAndTakesNothing() async throws {
        try await session.add("news", base + "/polled/news?per=2", kind: "linked")
        try await session.add("ev", base + "/sse?count=2&hold=60", kind: "sse")
        let follow = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--jsonl"]))
        #expect(await follow.waitUntilItHoldsOpen(fileEndingWith: ".locks/follow-news.lock"))
        #expect(await follow.waitUntilItHoldsOpen(fileEndingWith: ".locks/follow-ev.lock"))
        let pid = follow.process.processIdentifier
        let started = Date()
        let sync = try await session.run(["sync", "news", "--wait", "1", "--jsonl"])
        #expect(sync.status == 75, "\(sync.stderr)")
        #expect(sync.stdout.isEmpty, "nothing taken from the follow")
        #expect(sync.stderr.contains("news is followed by feedcli follow (pid \(pid))"), "\(sync.stderr)")
        #expect(Date().timeIntervalSince(started) >= 0.9, "it waited --wait first")
        let skipped = try await session.run(["sync", "--skip-busy", "--jsonl"])
        #expect(skipped.status == 0 && skipped.stdout.isEmpty, "left to the follow: \(skipped.stderr)")
        // The follow printed and stored what it found (unread): a next of stored entries is
        // not blocked, neither of the polled feed nor of the stream the follow is connected to.
        for _ in 0..<200 {
            let stream = try await session.requireStatus("ev")["entries"] as? Int
            let polled = try await session.requireStatus("news")["entries"] as? Int
            if stream == 2 && polled == 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let nextOfStream = try await session.run(["next", "ev", "--wait", "1", "--json"])
        #expect(nextOfStream.status == 0 && nextOfStream.stdout.contains(#""id":"1""#), "\(nextOfStream.stderr)")
        let nextOfPolled = try await session.run(["next", "news", "--wait", "1", "--json"])
        #expect(nextOfPolled.status == 0 && nextOfPolled.stdout.contains("news-"), "\(nextOfPolled.stderr)")
        #expect(try await session.run(["list", "--jsonl"]).status == 0)
        follow.process.send(SIGTERM)
        let run = await follow.finish()
        #expect(run.status == 0, "\(run.stderr)")
        let printed = JSONLines.ids(run.stdout)
        #expect(printed.contains("news-1") && printed.contains("news-2") && printed.contains("2"), "\(printed)")
        // Once the follow is gone, the feed is anyone's again.
        #expect(try await session.run(["sync", "news", "--jsonl"]).status == 0)
    }
}
