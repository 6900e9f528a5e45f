import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// WebSocket feeds end to end: the built `feedcli` following and syncing Jetstream and a Nostr
/// relay served from their real captures by `Fixtures/streams/websocket_server.py` (drops,
/// replays from a cursor, a replay window that moved on, a tampered event, NOTICE, CLOSED,
/// refusals at the upgrade), on SQLite and PostgreSQL.
@Suite("WebSocket feeds: Jetstream and Nostr", .serialized, .timeLimit(.minutes(3)))
struct WebSocketFeedTests {
    let server: PythonServer
    let base: String
    let session = StoreSession()

    init() async throws {
        server = try await PythonServer.webSockets()
        base = "ws://127.0.0.1:\(server.port)"
    }

    /// The ids of the capture's events that create a record of one of `collections`, in the
    /// capture's order, each once: what a follow of them delivers.
    static func jetstreamEntries(collections: Set<String>) -> [String] {
        var seen = Set<String>()
        return jetstreamEvents().compactMap { event in
            guard event["kind"] as? String == "commit", let commit = event["commit"] as? [String: Any],
                commit["operation"] as? String == "create", let collection = commit["collection"] as? String,
                collections.contains(collection), let did = event["did"] as? String,
                let rkey = commit["rkey"] as? String
            else { return nil }
            let id = "at://\(did)/\(collection)/\(rkey)"
            return seen.insert(id).inserted ? id : nil
        }
    }

    /// The capture's events, in order.
    static func jetstreamEvents() -> [[String: Any]] {
        let url = Fixtures.root.appendingPathComponent("streams/jetstream-v1.jsonl")
        return JSONLines.objects((try? String(contentsOf: url, encoding: .utf8)) ?? "")
    }

    /// The query of every Jetstream and relay connection the server answered, in order.
    func connections() async throws -> [String] {
        let script =
            #"python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "$U""#
        let run = try await Feedcli.shell(script, environment: ["U": "http://127.0.0.1:\(server.port)/log"])
        return try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String] ?? []
    }

    func addJetstream(_ name: String, _ query: String, _ extra: String..., on session: StoreSession? = nil) async throws
    {
        let run = try await (session ?? self.session).run(
            ["feeds", "add", name, base + "/jetstream" + query, "--kind", "jetstream"] + extra)
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// Waits (up to 20 s) until the feed holds at least `count` entries, polling the store.
    func waitUntilStored(atLeast count: Int, feed: String) async -> Bool {
        for _ in 0..<800 {
            if let stored = await (try? session.requireStatus(feed))?["entries"] as? Int, stored >= count {
                return true
            }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return false
    }

    @Test func aFollowInterruptedByTheServerDeliversEveryEventOnce() async throws {
        // The first connection drops without a close after 40 events, as a server restart does;
        // the next asks from 5 s before the largest time_us committed and gets everything again.
        try await addJetstream(
            "bsky", "?drop=40", "--collection", "app.bsky.feed.post", "--collection", "app.bsky.feed.like")
        let expected = Self.jetstreamEntries(collections: ["app.bsky.feed.post", "app.bsky.feed.like"])
        #expect(expected.count == 122)
        let run = try await session.feedcli("follow", "--max-entries", "122", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(JSONLines.ids(run.stdout) == expected, "every event once, in the order it came")
        let queries = try await connections()
        #expect(queries.count == 2, "\(queries)")
        let cursor = try #require(
            queries.last.flatMap {
                URLComponents(string: "ws://h" + $0)?.queryItems?.first { $0.name == "cursor" }?.value
            })
        // The position after the first connection: the largest time_us of its 40 events.
        let firstForty = Self.jetstreamEvents().filter { event in
            ["app.bsky.feed.post", "app.bsky.feed.like"].contains(
                (event["commit"] as? [String: Any])?["collection"] as? String ?? "")
                || event["kind"] as? String != "commit"
        }.prefix(40)
        let position = firstForty.compactMap { ($0["time_us"] as? NSNumber)?.int64Value }.max() ?? 0
        #expect(cursor == String(position - 5_000_000), "resumed from 5 s before the largest time_us committed")
        #expect(try await session.requireStatus("bsky")["entries"] as? Int == 122)
        let again = try await session.feedcli("sync", "bsky", "--jsonl")
        #expect(again.status == 0 && again.stdout.isEmpty, "nothing twice: \(again.stderr)")
    }

    @Test func syncTakesWhatTheServerSendsAndGoesOnFromThePosition() async throws {
        try await addJetstream("bsky-posts", "")
        let first = try await session.feedcli("sync", "bsky-posts", "--jsonl")
        let posts = Self.jetstreamEntries(collections: ["app.bsky.feed.post"])
        #expect(first.status == 0 && JSONLines.ids(first.stdout) == posts, "\(first.stderr)")
        let entry = try #require(JSONLines.objects(first.stdout).first)
        let id = try #require(entry["id"] as? String)
        let parts = id.split(separator: "/")
        #expect(
            entry["author"] as? String == String(parts[1])
                && entry["url"] as? String == "https://bsky.app/profile/\(parts[1])/post/\(parts[3])")
        #expect((entry["source"] as? [String: Any])?["kind"] as? String == "commit" && entry["text"] is String)
        let second = try await session.feedcli("sync", "bsky-posts", "--jsonl")
        #expect(second.status == 0 && second.stdout.isEmpty && second.stderr.isEmpty, "\(second.stderr)")
        let queries = try await connections()
        #expect(queries.first == "/jetstream?wantedCollections=app.bsky.feed.post")
        #expect(
            queries.count == 2 && queries[1].hasPrefix("/jetstream?wantedCollections=app.bsky.feed.post&cursor="),
            "\(queries)")
    }

    @Test func aFilterPicksEntriesAndAReplayThatMissedThePositionIsSaid() async throws {
        // Likes and posts asked for; the filter keeps posts in English. The second connection
        // starts 100 lines on, past the stored position (a replay window that moved on).
        try await addJetstream(
            "english", "?first=60&gap=100", "--collection", "app.bsky.feed.post", "--collection", "app.bsky.feed.like",
            "--filter",
            #".commit.collection == "app.bsky.feed.post" and ((.commit.record.langs // []) | index("en") != null)"#)
        let first = try await session.feedcli("sync", "english", "--jsonl")
        #expect(first.status == 0, "\(first.stderr)")
        let sources = JSONLines.objects(first.stdout).compactMap { $0["source"] as? [String: Any] }
        #expect(
            !sources.isEmpty
                && sources.allSatisfy {
                    (($0["commit"] as? [String: Any])?["record"] as? [String: Any])?["langs"] as? [String] == ["en"]
                })
        let second = try await session.feedcli("sync", "english", "--jsonl")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stderr.components(separatedBy: "is newer than the stored position").count == 2,
            "said once: \(second.stderr)")
    }

    @Test func refusalsAtTheUpgradeExitAsTheContractSays() async throws {
        for (path, status) in [("/missing", 69), ("/unauthorized", 77), ("/badaccept", 76)] {
            let run = try await session.feedcli("feeds", "add", "r\(status)", base + path, "--kind", "jetstream")
            #expect(run.status == 0)
            let sync = try await session.feedcli("sync", "r\(status)")
            #expect(sync.status == Int32(status), "\(path): \(sync.stderr)")
            if status == 76 { #expect(sync.stderr.contains("Sec-WebSocket-Accept"), "\(sync.stderr)") }
            _ = try await session.feedcli("feeds", "remove", "r\(status)")
        }
        let follow = try await session.feedcli("feeds", "add", "gone", base + "/missing", "--kind", "nostr")
        #expect(follow.status == 0)
        #expect(
            try await session.feedcli("follow", "gone", "--max-time", "20s").status == 69,
            "a refusal is not reconnected to")
    }

    @Test func aRedirectAtTheUpgradeIsNamedAndNotFollowed() async throws {
        // /moved answers 302 to another origin (localhost, not 127.0.0.1) that would echo the
        // token; a WebSocket client follows no redirect, and the token stays at its origin.
        let add = try await session.feedcli(
            "feeds", "add", "moved", base + "/moved", "--kind", "jetstream", "--token-env", "WS_TOKEN")
        #expect(add.status == 0, "\(add.stderr)")
        let sync = try await Feedcli.run(
            Feedcli.onStore(session.state, ["sync", "moved"]), environment: ["WS_TOKEN": "s3cret"])
        #expect(sync.status == 69, "\(sync.stderr)")
        #expect(
            sync.stderr.contains("HTTP 302")
                && sync.stderr.contains("redirects to ws://localhost:\(server.port)/headers")
                && sync.stderr.contains("not followed"), "\(sync.stderr)")
        #expect(!sync.stderr.contains("s3cret"))
        #expect(try await connections().allSatisfy { !$0.hasPrefix("/headers") }, "the redirect was followed")
    }

    @Test func aRelaysEventsAreCheckedAndItsWordsSaid() async throws {
        let add = try await session.feedcli(
            "feeds", "add", "relay", base + "/nostr?echo=1&tamper=1", "--kind", "nostr", "--since", "36500d")
        #expect(add.status == 0, "\(add.stderr)")
        let started = ContinuousClock.now
        let first = try await session.feedcli("sync", "relay", "--jsonl")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(ContinuousClock.now - started < .seconds(2), "EOSE ends the read: sync does not wait for silence")
        let entries = JSONLines.objects(first.stdout)
        #expect(entries.count == 91 && entries.allSatisfy { ($0["source"] as? [String: Any])?["kind"] as? Int == 1 })
        #expect(entries.allSatisfy { ($0["url"] as? String) == "nostr:" + (($0["id"] as? String) ?? "") })
        #expect(first.stderr.contains("its id is not the SHA-256 of its content (NIP-01)"), "the tampered event, named")
        #expect(first.stderr.contains(#"the relay says: ["REQ","feedcli",{"kinds":[1],"since":"#))
        // The next run asks from 10 minutes before the newest created_at stored.
        let newest = entries.compactMap { ($0["source"] as? [String: Any])?["created_at"] as? Int }.max() ?? 0
        let second = try await session.feedcli("sync", "relay", "--jsonl")
        #expect(second.status == 0 && second.stdout.isEmpty, "\(second.stderr)")
        #expect(second.stderr.contains(#""since":\#(newest - 600)}]"#), "\(second.stderr)")
    }

    @Test func aRelaysFilterAndItsClosedEndTheFeedWith69() async throws {
        let author = "753d025936c8c3238b1b2b2f748be6df92743c2201e5198946e9d6a29156793f"
        let add = try await session.feedcli(
            "feeds", "add", "closing", base + "/nostr?closed=auth-required:%20members%20only", "--kind", "nostr",
            "--since", "36500d", "--author", author, "--nostr-kind", "7",
            "--tag", "p=50c59a1cb233d08d5a1fb493f520c6b5d7f77a2ba42e4666801a3e366b0a027e")
        #expect(add.status == 0, "\(add.stderr)")
        let run = try await session.feedcli("follow", "closing", "--jsonl", "--max-time", "20s")
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("the relay closed the subscription: auth-required: members only"))
        let authors = JSONLines.objects(run.stdout).compactMap { $0["author"] as? String }
        #expect(!authors.isEmpty && authors.allSatisfy { $0 == author }, "what came before CLOSED is delivered")
        let refused = try await session.feedcli(
            "feeds", "add", "bad", base + "/nostr", "--kind", "nostr", "--author", "npub1abc")
        #expect(refused.status == 64 && refused.stderr.contains("64 hex digits"))
        let wrongKind = try await session.feedcli(
            "feeds", "add", "bad", base + "/nostr", "--kind", "nostr", "--did", "did:plc:a")
        #expect(wrongKind.status == 64)
    }

    @Test func sigkillMidStreamLosesNothingAndRepeatsAtMostOneGroup() async throws {
        try await addJetstream("paced", "?pace=0.01", "--collection", "app.bsky.feed.like")
        let likes = Self.jetstreamEntries(collections: ["app.bsky.feed.like"])
        let started = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--jsonl"]))
        #expect(await waitUntilStored(atLeast: 20, feed: "paced"))
        kill(started.process.processIdentifier, SIGKILL)
        let killed = await started.finish()
        let again = try await session.feedcli("sync", "paced", "--jsonl")
        #expect(again.status == 0, "\(again.stderr)")
        let before = JSONLines.ids(killed.stdout)
        let after = JSONLines.ids(again.stdout)
        #expect(Set(before + after) == Set(likes), "nothing lost")
        #expect(Set(before).intersection(after).count <= 100, "at most one group printed again")
        #expect(try await session.requireStatus("paced")["entries"] as? Int == likes.count, "each stored once")
    }

    @Test func sigtermMidStreamEndsWithEverythingPrintedCommitted() async throws {
        try await addJetstream("termed", "?pace=0.01&hold=60", "--collection", "app.bsky.feed.like")
        let likes = Self.jetstreamEntries(collections: ["app.bsky.feed.like"])
        let started = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--jsonl"]))
        #expect(await waitUntilStored(atLeast: 20, feed: "termed"))
        kill(started.process.processIdentifier, SIGTERM)
        let run = await started.finish()
        #expect(run.status == 0, "SIGTERM is how a follow ends: \(run.stderr)")
        let printed = JSONLines.ids(run.stdout)
        #expect(
            try await session.requireStatus("termed")["entries"] as? Int == printed.count,
            "what was printed is stored, no more")
        let again = try await session.feedcli("sync", "termed", "--jsonl", "--timeout", "30")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(printed + JSONLines.ids(again.stdout) == likes, "the rest once, in order")
    }

    @Test func aPingStormIsAnsweredAndEveryEventStillDelivered() async throws {
        try await addJetstream(
            "storm", "?pings=50&first=40", "--collection", "app.bsky.feed.like", "--collection", "app.bsky.feed.post")
        let run = try await session.feedcli("sync", "storm", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let expected = Array(
            Self.jetstreamEvents().prefix(40).compactMap { event -> String? in
                guard let commit = event["commit"] as? [String: Any], commit["operation"] as? String == "create",
                    let collection = commit["collection"] as? String,
                    ["app.bsky.feed.like", "app.bsky.feed.post"].contains(collection),
                    let did = event["did"] as? String, let rkey = commit["rkey"] as? String
                else { return nil }
                return "at://\(did)/\(collection)/\(rkey)"
            })
        #expect(!expected.isEmpty && JSONLines.ids(run.stdout) == expected, "2,000 pings answered between 40 events")
    }

    @Test func aStoreInPostgreSQLKeepsAJetstreamPosition() async throws {
        let onServer = try await StoreSession.onPostgres()
        try await addJetstream("pg", "?drop=10", on: onServer)
        let posts = Self.jetstreamEntries(collections: ["app.bsky.feed.post"])
        let run = try await onServer.feedcli("follow", "--max-entries", "\(posts.count)", "--jsonl")
        #expect(run.status == 0 && JSONLines.ids(run.stdout) == posts, "\(run.stderr)")
        let again = try await onServer.feedcli("sync", "pg", "--jsonl")
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again.stderr)")
        let status = try await onServer.requireStatus("pg")
        #expect(status["last_event_id"] is String && status["entries"] as? Int == posts.count)
    }

    /// A `sync` ends after 2 s without an event, even on a server that answers every ping (as
    /// every real one does): a pong is the connection's upkeep, not an event.
    @Test func aSyncEndsWhenNoEventCameForTwoSecondsThoughTheServerAnswersPings() async throws {
        try await addJetstream("held", "?hold=20&answer=1")
        let started = ContinuousClock.now
        let run = try await session.feedcli("sync", "held", "--jsonl")
        let took = ContinuousClock.now - started
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.isEmpty, "what the server sent")
        #expect(took < .seconds(12), "idle after 2 s without an event, not at the server's close: \(took)")
    }

    /// A close with a code other than 1000 or 1001 says something went wrong at the server:
    /// said on stderr, not only with `-v`.
    @Test func aCloseWithAnErrorCodeIsSaid() async throws {
        try await addJetstream("erred", "?closecode=1011")
        let run = try await session.feedcli("sync", "erred", "--jsonl")
        #expect(run.stderr.contains("the server closed the connection (1011)"), "\(run.stderr)")
        try await addJetstream("fine", "?closecode=1000")
        let quiet = try await session.feedcli("sync", "fine", "--jsonl")
        #expect(!quiet.stderr.contains("closed the connection"), "a normal close is not: \(quiet.stderr)")
    }

    /// A relay that floods notices gets at most ten lines a connection on stderr, then one line
    /// counting the rest.
    @Test func aFloodOfNoticesIsTenLinesAndACount() async throws {
        let add = try await session.run([
            "feeds", "add", "loud", base + "/nostr?notices=5000", "--kind", "nostr", "--since", "36500d",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        let run = try await session.feedcli("sync", "loud", "--jsonl")
        #expect(run.status == 0, "\(run.stderr.prefix(500))")
        let said = run.stderr.split(separator: "\n").filter { $0.contains("the relay says: notice") }
        #expect(said.count == 10, "\(said.count) notices said")
        #expect(run.stderr.contains("and 4990 more notices on this connection, not said"), "\(run.stderr.suffix(300))")
        #expect(run.stderr.utf8.count < 4000, "bounded: \(run.stderr.utf8.count) bytes")
    }

    /// Huge messages one after another cost what one costs, and no more than the contract's
    /// bound: `--max-size` plus a backlog of 64 MiB. The memory of each is given back (glibc's
    /// threshold for mapping an allocation on its own rose with each free); the next message
    /// waits in the socket while one is stored (it was read beside it); its UTF-8 is checked
    /// without a copy; SQLite reads the entry's text where it lies (it was copied to bind).
    /// On PostgreSQL too: libpq keeps the largest statement it sent in a buffer it never
    /// shrinks, so a huge entry is sent in parts.
    @Test(arguments: [false, true])
    func hugeMessagesStayWithinMaxSizeAndABacklog(onPostgres: Bool) async throws {
        func growth(_ count: Int) async throws -> Int {
            let session = onPostgres ? try await StoreSession.onPostgres() : StoreSession()
            try await addJetstream("big", "?big=\(count)&size=15", on: session)
            let run = try await PageMemoryTests.growth(
                running: ["sync", "big", "--jsonl", "--max-size", "16777216"], on: session)
            #expect(run.status == 0)
            #expect(try await session.requireStatus("big")["entries"] as? Int == count)
            return run.mib
        }
        let one = try await growth(1)
        let five = try await growth(5)
        #expect(one <= PageMemoryTests.streamBound, "one message: \(one) MiB more than a start")
        #expect(five <= PageMemoryTests.streamBound, "five messages: \(five) MiB more than a start")
        #expect(five - one < 40, "five messages \(five) MiB, one \(one) MiB")
    }
}
