import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `follow` of every feed: stream feeds live and polled feeds when they are
/// due, in one output, with every limit counting entries of every kind. The built `feedcli`
/// against `Fixtures/streams/stream_server.py` (its `/sse` streams and `/polled/NAME` feeds).
@Suite("follow of every feed: streams live, polled feeds when due", .serialized, .timeLimit(.minutes(3)))
struct FollowEveryFeedTests {
    let server: PythonServer
    let base: String
    let session = StoreSession()

    init() async throws {
        server = try await PythonServer.streams()
        base = "http://127.0.0.1:\(server.port)"
    }

    /// `[name, seconds since the server started]` of every request of a polled feed.
    func polledRequests(_ name: String) async throws -> [Double] {
        let run = try await Feedcli.shell(
            #"python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "$U""#,
            environment: ["U": base + "/polled-log"])
        let rows = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[Any]] ?? []
        return rows.filter { $0.first as? String == name }.compactMap { $0.last as? Double }
    }

    func add(_ name: String, _ url: String, _ options: String...) async throws {
        let run = try await session.run(["feeds", "add", name, url] + options)
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func aStreamAndAPolledFeedAreFollowedInOneOutputThePolledOneWhenDueAgain() async throws {
        try await add("ev", base + "/sse?count=3&hold=60", "--kind", "sse")
        try await add("grow", base + "/polled/grow?per=2", "--kind", "linked", "--every", "1s")
        let run = try await session.feedcli("follow", "--max-time", "4s", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = JSONLines.objects(run.stdout)
        let stream = lines.filter { $0["feed"] as? String == "ev" }.compactMap { $0["id"] as? String }
        let polled = lines.filter { $0["feed"] as? String == "grow" }.compactMap { $0["id"] as? String }
        #expect(stream == ["1", "2", "3"], "\(run.stdout)")
        let requests = try await polledRequests("grow")
        #expect(requests.count >= 2, "due again within the run (every 1s): \(requests)")
        // Each request's two new items, once each; the last request may still have been in flight
        // when --max-time ended the session (on a busy machine), and then printed nothing.
        #expect(
            polled.count == 2 * requests.count || polled.count == 2 * (requests.count - 1),
            "each request's two new items, once each: \(polled) for \(requests.count) requests")
        #expect(Set(polled).count == polled.count)
        #expect(polled.prefix(2) == ["grow-1", "grow-2"], "oldest first")
    }

    @Test func retryAfterOfAPolledFeedIsHonouredWithinTheSession() async throws {
        try await add("limited", base + "/polled/limited?per=1&retry_first=2", "--kind", "linked", "--every", "1s")
        let run = try await session.feedcli("follow", "--max-time", "5s", "--jsonl")
        #expect(run.status == 0, "the request waited as the server asked, then succeeded: \(run.stderr)")
        let requests = try await polledRequests("limited")
        #expect(requests.count >= 2, "\(requests)")
        if requests.count >= 2 {
            #expect(requests[1] - requests[0] >= 1.9, "asked again only after Retry-After: \(requests)")
        }
        #expect(JSONLines.ids(run.stdout).first == "limited-1", "\(run.stdout)")
    }

    @Test func maxEntriesCountsEntriesOfEveryKindAndTheRestComesNextTime() async throws {
        try await add("ev", base + "/sse?count=3&hold=60", "--kind", "sse")
        try await add("five", base + "/polled/five?per=5&max=5", "--kind", "linked")
        let first = try await session.feedcli("follow", "--max-entries", "6", "--jsonl")
        #expect(first.status == 0, "\(first.stderr)")
        let taken = JSONLines.objects(first.stdout).map { "\($0["feed"] ?? "")/\($0["id"] ?? "")" }
        #expect(taken.count == 6, "\(first.stdout)")
        let stored =
            try await (session.requireStatus("ev")["entries"] as? Int ?? 0)
            + (session.requireStatus("five")["entries"] as? Int ?? 0)
        #expect(stored == 6, "what was printed is committed, and nothing else")
        // The rest: the stream's from its position, the polled feed's by name (it is not due).
        let rest = try await session.feedcli("follow", "ev", "--until-idle", "1s", "--jsonl")
        let polled = try await session.feedcli("sync", "five", "--jsonl")
        let later = (JSONLines.objects(rest.stdout) + JSONLines.objects(polled.stdout)).map {
            "\($0["feed"] ?? "")/\($0["id"] ?? "")"
        }
        let everything = ["ev/1", "ev/2", "ev/3"] + (1...5).map { "five/five-\($0)" }
        #expect(
            (taken + later).sorted() == everything.sorted(), "every entry once, over both runs: \(taken) then \(later)")
    }

    /// A feed added by another process while `follow` runs is followed within seconds, without
    /// a restart; one removed is dropped quietly (no "no feed named", no 66 at the end).
    @Test func aFeedAddedOrRemovedByAnotherProcessIsFollowedOrDroppedWithinSeconds() async throws {
        try await add("ev", base + "/sse?count=1&hold=60", "--kind", "sse")
        let follow = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--jsonl", "--max-time", "25s"]))
        try await Task.sleep(for: .seconds(1))
        let added = Date()
        try await add("late", base + "/polled/late?per=2&max=2", "--kind", "linked")
        var seen = false
        while !seen && Date().timeIntervalSince(added) < 15 {
            seen = try await polledRequests("late").count > 0
            if !seen { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(seen && Date().timeIntervalSince(added) < 5, "followed within 5 s of its adding")
        try await add("gone", base + "/polled/gone?per=1&every=1", "--kind", "linked", "--every", "1s")
        for _ in 0..<150 where try await polledRequests("gone").isEmpty {
            try await Task.sleep(for: .milliseconds(100))
        }
        let removal = try await session.run(["feeds", "remove", "gone"])
        #expect(removal.status == 0, "\(removal.stderr)")
        try await Task.sleep(for: .seconds(3))
        let afterRemoval = try await polledRequests("gone").count
        try await Task.sleep(for: .seconds(3))
        #expect(try await polledRequests("gone").count == afterRemoval, "dropped: not asked again")
        follow.process.send(SIGTERM)
        let run = await follow.finish()
        #expect(run.status == 0, "a removed feed is no failure: \(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let ids = JSONLines.ids(run.stdout)
        #expect(ids.contains("late-1") && ids.contains("late-2") && ids.contains("1"), "\(ids)")
    }

    /// Streams are not requests in flight: six streams of one server are six connections, all
    /// read, and a polled feed of the same server is fetched beside them when due.
    @Test func sixStreamsOfOneHostAreAllReadAndItsPolledFeedGoesOn() async throws {
        for number in 1...6 { try await add("s\(number)", base + "/sse?count=1&hold=60&n=\(number)", "--kind", "sse") }
        try await add("beside", base + "/polled/beside?per=1", "--kind", "linked", "--every", "1s")
        let run = try await session.feedcli("follow", "--max-time", "5s", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let feeds = Set(JSONLines.objects(run.stdout).compactMap { $0["feed"] as? String })
        #expect(feeds.isSuperset(of: (1...6).map { "s\($0)" }), "every stream read: \(feeds.sorted())")
        #expect(try await polledRequests("beside").count >= 2, "the polled feed fetched when due, beside them")
    }

    /// A `follow` restarted (by its service) fetches a polled feed only once it is due.
    @Test func aPolledFeedIsNotFetchedAtTheStartWhenItIsNotDue() async throws {
        try await add("slow", base + "/polled/slow?per=1", "--kind", "linked")
        let first = try await session.feedcli("follow", "--max-entries", "1", "--jsonl")
        #expect(first.status == 0 && JSONLines.ids(first.stdout) == ["slow-1"], "\(first.stderr)")
        let second = try await session.feedcli("follow", "--max-time", "2s", "--jsonl")
        #expect(second.status == 0 && second.stdout.isEmpty, "\(second.stderr)")
        #expect(try await polledRequests("slow").count == 1, "not due for 15 minutes: not asked again")
    }

    @Test func aFeedOfEveryNeverIsFollowedOnlyByNameAndNoFeedIsAUsageError() async throws {
        try await add("never", base + "/polled/never?per=1", "--kind", "linked", "--every", "never")
        #expect(try await session.feedcli("follow").status == 64, "no feed to follow: `never` is synced only by name")
        try await add("ev", base + "/sse?count=1&hold=60", "--kind", "sse")
        let all = try await session.feedcli("follow", "--until-idle", "1s", "--jsonl")
        #expect(all.status == 0 && JSONLines.ids(all.stdout) == ["1"], "\(all.stdout) \(all.stderr)")
        let named = try await session.feedcli("follow", "never", "--max-entries", "1", "--jsonl")
        #expect(named.status == 0 && JSONLines.ids(named.stdout) == ["never-1"], "\(named.stderr)")
        #expect(try await session.feedcli("follow", "--json").status == 64)
    }
}
