import FeedBase
import FeedCore
import FeedModel
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `feedcli sync` (and `next` on paged feeds) with the built binary against loopback servers.
@Suite("feedcli sync end to end", .serialized, .timeLimit(.minutes(3)))
struct SyncEndToEndTests {
    let session = StoreSession()
    var state: String { session.state }

    func ids(_ run: FeedcliRun) -> [String] { JSONLines.ids(run.stdout) }

    @Test func skipBusyLeavesAFeedAnotherRunHoldsAndSyncsTheRest() async throws {
        let server = try LoopbackServer { request, connection in
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            connection.respond(200, headers: [("Content-Type", "application/json")], text: #"[{"id":"\#(name)"}]"#)
        }
        try await session.add("a", server.baseURL + "/a", kind: "linked")
        try await session.add("b", server.baseURL + "/b", kind: "linked")
        // Another run holds `a` (its lock, as a sync holds it while it fetches).
        var held: (any HeldFeedLock)? = try FeedStore.open(at: state).lock(feed: "a")
        let skipping = try await session.feedcli("sync", "--skip-busy", "--jsonl", "-v", "--wait", "5")
        #expect(skipping.status == 0, "\(skipping.stderr)")
        #expect(ids(skipping) == ["b"], "the held feed is left, the other synced")
        #expect(
            skipping.stderr.contains("a: another run is syncing it; left to that run (--skip-busy)"),
            "\(skipping.stderr)")
        withExtendedLifetime(held) {}
        held = nil
        let after = try await session.feedcli("sync", "--skip-busy", "--jsonl")
        #expect(ids(after) == ["a"], "let go, it is synced")
    }

    @Test func firstSyncGetsUpToMaxPagesAndLaterRunsBackfillTheRest() async throws {
        let server = try PagedServer(kind: .graph, count: 12, pageSize: 3)
        try await session.add("g", server.url, kind: "graph")
        let first = try await session.feedcli("sync", "g", "--jsonl", "--max-pages", "2")
        #expect(first.status == 0)
        #expect(ids(first) == ["7_7", "7_8", "7_9", "7_10", "7_11", "7_12"], "oldest first")
        let status = try #require(try await session.feedcli("status", "g", "--json").json as? [[String: Any]])
        #expect(status.first?["resume_url"] as? String == server.server.baseURL + "/feed?page=3")

        let second = try await session.feedcli("sync", "g", "--jsonl", "--max-pages", "2")
        #expect(ids(second) == ["7_4", "7_5", "7_6"], "one page for the top (304), one for the backlog")
        let third = try await session.feedcli("sync", "g", "--jsonl", "--max-pages", "5")
        #expect(ids(third) == ["7_1", "7_2", "7_3"])
        #expect(try await session.feedcli("sync", "g").stdout.isEmpty)

        var delivered: [String] = []
        while true {
            let next = try await session.feedcli("next", "g", "--json")
            guard next.status == 0, let id = (next.json as? [String: Any])?["id"] as? String else { break }
            delivered.append(id)
        }
        #expect(delivered == (1...12).map { "7_\($0)" }, "next delivers oldest first, backfill included")
    }

    @Test(arguments: [("graph", PagedServer.Kind.graph), ("jsonfeed", .jsonfeed), ("linked", .linked)])
    func secondSyncSendsValidatorsAndPrintsNothing(kindName: String, kind: PagedServer.Kind) async throws {
        let server = try PagedServer(kind: kind, count: 5, pageSize: 2)
        try await session.add("f", server.url, kind: kindName)
        let first = try await session.feedcli("sync", "--jsonl")
        #expect(first.status == 0)
        #expect(ids(first).count == 5)
        let before = server.requests.count
        let second = try await session.feedcli("sync")
        #expect(second.status == 0)
        #expect(second.stdout.isEmpty && second.stderr.isEmpty, "cron hears nothing when nothing is new")
        #expect(server.requests.count == before + 1)
        #expect(server.requests.last?.header("If-None-Match") != nil, "the validator is sent back")
    }

    @Test func itemsPublishedLaterAppearOnTheNextSyncExactlyOnce() async throws {
        let server = try PagedServer(kind: .jsonfeed, count: 4, pageSize: 3)
        try await session.add("j", server.url, kind: "jsonfeed")
        _ = try await session.feedcli("sync")
        server.publish(5...6)
        let later = try await session.feedcli("sync", "--jsonl")
        #expect(ids(later) == ["5", "6"])
        #expect(try await session.feedcli("sync", "--jsonl").stdout.isEmpty)
        server.publish(7...11)
        #expect(
            ids(try await session.feedcli("sync", "--jsonl")) == ["7", "8", "9", "10", "11"],
            "across page boundaries too")
        let listed = try await session.feedcli("list", "j", "--jsonl")
        #expect(ids(listed) == (1...11).map(String.init), "every entry once, oldest first")
    }

    @Test func retryAfterMakesLaterRunsSkipTheFeedWithoutARequest() async throws {
        let server = try PagedServer(kind: .linked, count: 2)
        try await session.add("l", server.url, kind: "linked")
        server.failNext(503, headers: [("Retry-After", "120")])
        let failed = try await session.feedcli("sync", "l")
        #expect(failed.status == 75)
        #expect(failed.stderr.contains("l: temporary failure"))
        let status = try #require(try await session.feedcli("status", "l", "--json").json as? [[String: Any]])
        let until = try #require(status.first?["retry_not_before"] as? String)
        #expect(Timestamp.parse(until).map { $0.timeIntervalSinceNow > 100 } == true)
        let requests = server.requests.count
        let skipped = try await session.feedcli("sync", "l")
        #expect(skipped.status == 0)
        #expect(skipped.stdout.isEmpty && skipped.stderr.isEmpty)
        #expect(server.requests.count == requests, "no request before the server's time")
        #expect(try await session.feedcli("next", "l").status == 1)
        #expect(server.requests.count == requests)
        let forced = try await session.feedcli("sync", "l", "--force", "--jsonl")
        #expect(forced.status == 0 && ids(forced) == ["1", "2"])
    }

    @Test func aMultiFeedSyncGoesOnPastAFailingFeed() async throws {
        let good = try PagedServer(kind: .graph, count: 2)
        let gone = try PagedServer(kind: .linked, count: 2)
        let busy = try PagedServer(kind: .jsonfeed, count: 2)
        try await session.add("a-good", good.url, kind: "graph")
        try await session.add("b-gone", gone.url, kind: "linked")
        try await session.add("c-busy", busy.url, kind: "jsonfeed")
        _ = try await session.feedcli("feeds", "remove", "posts")
        gone.failNext(410)
        busy.failNext(503)
        let run = try await session.feedcli("sync", "--jsonl")
        #expect(ids(run) == ["7_1", "7_2"], "the good feed's entries are printed")
        #expect(run.status == 69, "a permanent failure outranks a temporary one")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.contains { $0.hasPrefix("feedcli: b-gone: the server refused with HTTP 410") })
        #expect(lines.contains { $0.hasPrefix("feedcli: c-busy: temporary failure") })

        busy.failNext(503)
        let onlyTemporary = try await session.feedcli("sync", "c-busy", "b-gone", "--jsonl")
        #expect(onlyTemporary.status == 75)
        #expect(ids(onlyTemporary) == ["1", "2"], "b-gone recovered and was fetched")
    }

    @Test func retriesWithinARunForFailuresThatMayPass() async throws {
        let server = try PagedServer(kind: .graph, count: 2)
        try await session.add("g", server.url, kind: "graph")
        server.failNext(500)
        server.failNext(429)
        let run = try await Feedcli.run(["sync", "g", "--jsonl", "--state", state, "--retries", "2"])
        #expect(run.status == 0)
        #expect(ids(run) == ["7_1", "7_2"])
        #expect(server.requests.count == 3)
        server.failNext(404)
        let notFound = try await Feedcli.run(["sync", "g", "--state", state, "--retries", "2"])
        #expect(notFound.status == 69)
        #expect(server.requests.count == 4, "never retried")
    }

    @Test func syncOfAnIndexedFeedRequestsConcurrentlyAndStoresInOrder() async throws {
        let posts = try PostsServer(available: 23)
        posts.gate.gatherFirst(4)  // the first four requests are answered only once all four are in flight
        try await session.add("p", posts.url, kind: "indexed")
        let run = try await session.feedcli("sync", "p", "--jsonl")
        #expect(run.status == 0)
        #expect(ids(run) == (1...23).map(String.init))
        #expect(posts.server.peakInFlight == 4)
        #expect(posts.server.connectionCount <= 4, "connections are reused")
        #expect(try await session.feedcli("sync", "p").stdout.isEmpty)
        let status = try #require(try await session.feedcli("status", "p", "--json").json as? [[String: Any]])
        #expect(status.first?["next_index"] as? Int == 24)
        #expect(status.first?["unread"] as? Int == 23)
        let bounded = try PostsServer(available: 30)
        try await session.add("q", bounded.url, kind: "indexed")
        #expect(ids(try await session.feedcli("sync", "q", "--jsonl", "--max-pages", "10")).count == 10)
    }

    @Test func nextOnAPagedFeedSyncsThenDeliversTheOldest() async throws {
        let server = try PagedServer(kind: .linked, count: 5, pageSize: 2)
        try await session.add("l", server.url, kind: "linked")
        let first = try await session.feedcli("next", "l", "--json")
        #expect((first.json as? [String: Any])?["id"] as? String == "1")
        #expect((first.json as? [String: Any])?["read"] as? Bool == true)
        let requests = server.requests.count
        let second = try await session.feedcli("next", "l", "--json")
        #expect((second.json as? [String: Any])?["id"] as? String == "2")
        #expect(server.requests.count == requests, "unread entries are delivered without fetching")
        let shown = try await session.feedcli("show", "3", "--feed", "l", "--json")
        #expect((shown.json as? [String: Any])?["title"] as? String == "post 3")
        #expect((shown.json as? [String: Any])?["author"] as? String == "octo")
    }

    @Test func badDataExits65AndChangesNothing() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"{"version":"https://jsonfeed.org/version/1.1","title":"T","items":"nope"}"#)
        }
        try await session.add("bad", server.baseURL + "/feed.json", kind: "jsonfeed")
        let run = try await session.feedcli("sync", "bad")
        #expect(run.status == 65)
        #expect(run.stderr.contains("its `items` is a string, not an array"))
        #expect(try await session.feedcli("list", "bad", "--json").stdout == "[]\n")
    }

    /// An item that moves to the next page while a walk runs (it meets it twice) is one entry;
    /// the ids a walk has seen are one set for all its pages.
    @Test func anItemMetOnTwoPagesOfAWalkIsDeliveredOnce() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path == "/feed" {
                connection.respond(
                    200, headers: [("Link", "</feed?page=2>; rel=\"next\"")], text: #"[{"id":"4"},{"id":"3"}]"#)
            } else if request.path == "/feed?page=2" {
                connection.respond(
                    200, headers: [("Link", "</feed?page=3>; rel=\"next\"")], text: #"[{"id":"3"},{"id":"2"}]"#)
            } else {
                connection.respond(200, text: #"[{"id":"2"},{"id":"4"},{"id":"1"}]"#)
            }
        }
        try await session.add("moving", server.baseURL + "/feed", kind: "linked")
        let run = try await session.feedcli("sync", "moving", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(JSONLines.ids(run.stdout) == ["1", "2", "3", "4"])
    }

    /// Numbers from the command line and the store are outside data: `--max-pages` of Int.max and
    /// a stored `next_index` of Int.max end a sync normally (both ended in an overflow trap, 132).
    @Test func theLargestPageCountAndIndexEndASyncNormally() async throws {
        let posts = try PostsServer(available: 3)
        try await session.add("ix", posts.url, kind: "indexed")
        let all = try await session.feedcli("sync", "ix", "--jsonl", "--max-pages", "9223372036854775807")
        #expect(all.status == 0 && JSONLines.ids(all.stdout) == ["1", "2", "3"], "\(all.stderr)")
        #expect(try await editStore(at: state, "UPDATE feed SET next_index = 9223372036854775807 WHERE name = 'ix'"))
        let last = try await session.feedcli("sync", "ix", "--jsonl")
        #expect(last.status == 0 && last.stdout.isEmpty, "\(last.status): \(last.stderr)")
    }

    /// The slow feed's server holds its answer until the test has read the fast feed's entries
    /// (or 10 seconds pass): output that waited for every feed would come only after it answered.
    @Test func eachFeedsEntriesArePrintedAsSoonAsTheyAreStored() async throws {
        let fast = try PagedServer(kind: .graph, count: 2)
        let release = DispatchSemaphore(value: 0)
        let answered = Locked(false)
        let slow = try LoopbackServer { _, connection in
            _ = release.wait(timeout: .now() + 10)
            answered.withLock { $0 = true }
            connection.respond(200, text: "[]")
        }
        try await session.add("a-fast", fast.url, kind: "graph")
        try await session.add("b-slow", slow.baseURL + "/feed", kind: "linked")
        // The test reads stdout itself (no background reader to race it for the first bytes).
        let running = try Feedcli.start(
            ["sync", "a-fast", "b-slow", "--jsonl", "--state", state, "--retries", "0"], reading: false)
        let handle = running.out.fileHandleForReading
        let firstOutput = await onOwnThread { handle.availableData }  // read(2) blocks: a thread of its own
        let slowHadAnswered = answered.value
        release.signal()
        let rest = await running.finish()
        #expect(String(decoding: firstOutput, as: UTF8.self).contains(#""id":"7_1""#))
        #expect(!slowHadAnswered, "the fast feed's entries came out while the slow feed's answer was held")
        #expect(rest.status == 0)
    }

    /// Each of four servers answers only once all four requests have arrived (a barrier, given
    /// up after 10 seconds): feeds synced one after another would never all be in flight.
    @Test func jobsSyncSlowFeedsTogetherAndKeepEachFeedsBlockWhole() async throws {
        let arrived = Locked(0)
        let allHere = DispatchSemaphore(value: 0)
        let metTogether = Locked<[Bool]>([])
        let servers = try (0..<4).map { _ in
            try LoopbackServer { _, connection in
                if arrived.withLock({
                    $0 += 1
                    return $0
                }) == 4 {
                    for _ in 0..<4 { allHere.signal() }
                }
                let together = allHere.wait(timeout: .now() + 10) == .success
                metTogether.withLock { $0.append(together) }
                connection.respond(200, text: "[" + (1...3).map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]")
            }
        }
        for (number, server) in servers.enumerated() {
            try await session.add("slow\(number)", server.baseURL + "/feed", kind: "linked")
        }
        let names = (0..<4).map { "slow\($0)" }
        let together = try await Feedcli.run(
            ["sync"] + names + ["--jobs", "4", "--jsonl", "--state", state, "--retries", "0"])
        #expect(together.status == 0)
        #expect(
            metTogether.value == Array(repeating: true, count: 4), "four feeds in flight at once, not one after another"
        )
        let feeds = JSONLines.objects(together.stdout).compactMap { $0["feed"] as? String }
        #expect(feeds.count == 12)
        let blocks = feeds.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(blocks.sorted() == names, "each feed's entries are one block, never interleaved")
    }
}
