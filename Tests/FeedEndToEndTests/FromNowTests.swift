import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `feeds add|import --from-now`: what a feed holds when it is added is taken as already
/// delivered; only later entries are new. The built `feedcli` against
/// `Fixtures/streams/stream_server.py`.
@Suite("--from-now: the backlog taken as read", .serialized, .timeLimit(.minutes(3)))
struct FromNowTests {
    let server: PythonServer
    let session = StoreSession()
    var base: String { server.base }

    init() async throws { server = try await PythonServer.streams() }

    @Test func aPolledFeedsFortyEightEntriesAreTakenAsReadAndOnlyTheNextIsNew() async throws {
        // The server's first answer holds 48 items, its second one more.
        let added = try await session.run([
            "feeds", "add", "fn", base + "/polled/fn?per=48&max=49", "--kind", "linked", "--from-now",
        ])
        #expect(added.status == 0 && added.stdout.isEmpty, "\(added.stderr)")
        #expect(added.stderr.contains("fn: 48 entries there now taken as read"), "\(added.stderr)")
        let listed = JSONLines.objects(try await session.run(["list", "--jsonl"]).stdout)
        #expect(listed.count == 48 && listed.allSatisfy { $0["read"] as? Bool == true }, "\(listed.count)")
        let sync = try await session.run(["sync", "--force", "--jsonl"])
        #expect(sync.status == 0 && JSONLines.ids(sync.stdout) == ["fn-49"], "\(sync.stdout) \(sync.stderr)")
    }

    @Test func aStreamThatReplaysFromItsStartBeginsAfterWhatItHeld() async throws {
        let added = try await session.run([
            "feeds", "add", "ev", base + "/sse?count=3&hold=0", "--kind", "sse", "--from-now",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let quiet = try await session.run(["follow", "--until-idle", "2s", "--jsonl"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty, "nothing of what it held: \(quiet.stdout) \(quiet.stderr)")
        // The server now has two more events (its URL says the last id): only they are new.
        let more = try await session.run([
            "feeds", "add", "ev", base + "/sse?count=5&hold=0", "--kind", "sse", "--replace",
        ])
        #expect(more.status == 0, "\(more.stderr)")
        let follow = try await session.run(["follow", "--until-idle", "2s", "--jsonl"])
        #expect(follow.status == 0 && JSONLines.ids(follow.stdout) == ["4", "5"], "\(follow.stdout) \(follow.stderr)")
    }

    @Test func aJetstreamFeedStartsAtTheLivePositionWithoutConnecting() async throws {
        let added = try await session.run([
            "feeds", "add", "js", "ws://127.0.0.1:9/subscribe", "--kind", "jetstream", "--from-now",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let position = try await session.requireStatus("js")["last_event_id"] as? String
        let now = Date().timeIntervalSince1970 * 1_000_000
        #expect(position.flatMap(Double.init).map { abs($0 - now) < 120_000_000 } == true, "\(position ?? "nil")")
    }

    @Test func aFeedWhoseFirstFetchFailsIsNotAdded() async throws {
        let closed = try RefusingPort()
        let added = try await session.run([
            "feeds", "add", "down", "http://127.0.0.1:\(closed.port)/feed", "--kind", "linked", "--from-now",
        ])
        #expect(added.status == 75, "\(added.stderr)")
        #expect(added.stderr.contains("down was not added (--from-now)"), "\(added.stderr)")
        let feeds = try await session.run(["feeds", "list", "--json"])
        #expect(!feeds.stdout.contains(#""down""#), "\(feeds.stdout)")
    }
}
