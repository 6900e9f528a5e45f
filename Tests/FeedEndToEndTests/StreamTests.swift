import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Live streams end to end: the built `feedcli` against a streaming server on
/// 127.0.0.1 (`Fixtures/streams/stream_server.py`: drops, silences, replays from
/// `Last-Event-ID`, refusals) and real captured streams (Mastodon, Wikimedia EventStreams).
@Suite("Live streams: follow and sync of SSE and NDJSON feeds", .serialized, .timeLimit(.minutes(3)))
struct StreamTests {
    let server: PythonServer
    let base: String
    let session = StoreSession()

    init() async throws {
        server = try await PythonServer.streams()
        base = "http://127.0.0.1:\(server.port)"
    }

    /// The `Last-Event-ID` of every stream request the server answered, in order (nil: none).
    func lastEventIDs() async throws -> [String?] {
        let run = try await Feedcli.shell(
            #"python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "$U""#,
            environment: ["U": base + "/log"])
        let values = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any] ?? []
        return values.map { $0 as? String }
    }

    func ids(_ output: String) -> [String] { JSONLines.ids(output) }

    /// Waits (up to 10 s) until the feed holds `count` entries: a running `follow`'s progress, seen
    /// in the store, not guessed from a time. Whether it came to that. Polled (another process's
    /// commits send no signal), without holding a thread.
    func waitUntilStored(_ count: Int, feed: String) async -> Bool {
        for _ in 0..<400 {
            if await (try? session.requireStatus(feed))?["entries"] as? Int == count { return true }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return false
    }

    /// Events of 1 MiB, more than the backlog, cost `--max-size` and a bounded backlog: an
    /// event joined from many chunks counts as unread until it is delivered (it counted as the
    /// last chunk alone, and the reader ran far ahead of the store).
    @Test(arguments: ["sse", "ndjson"])
    func largeEventsStayWithinMaxSizeAndABacklog(kind: String) async throws {
        let count = 60
        try await session.add("big", base + "/\(kind)?count=\(count)&pad=1024", kind: kind)
        // A debug build parses 60 MiB slowly beside the other tests: more than sync's 30 s.
        let run = try await PageMemoryTests.growth(
            running: ["sync", "big", "--jsonl", "--timeout", "150"], on: session)
        #expect(run.status == 0)
        #expect(try await session.requireStatus("big")["entries"] as? Int == count)
        #expect(run.mib <= PageMemoryTests.streamBound, "\(count) events of 1 MiB: \(run.mib) MiB more than a start")
    }

    @Test func followReconnectsFromTheLastEventIDAndDeliversEveryEventOnce() async throws {
        // The server drops the connection after every two events (a restart, as far as the
        // client can tell) and replays from the Last-Event-ID it is sent.
        try await session.add("ev", base + "/sse?count=7&drop=2&retry=50", kind: "sse")
        let run = try await session.feedcli("follow", "--max-entries", "7", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ids(run.stdout) == (1...7).map(String.init), "every event once, in order")
        #expect(try await lastEventIDs() == [nil, "2", "4", "6"])
        let status = try await session.requireStatus("ev")
        #expect(status["last_event_id"] as? String == "7" && status["entries"] as? Int == 7)
        #expect(status["last_event_at"] is String)
    }

    /// The same two on a store in PostgreSQL: a stream's position is stored there as
    /// in a file, sent again after every reconnection and on the next run.
    @Test func aStoreInPostgreSQLKeepsAStreamsPositionAcrossReconnectionsAndRuns() async throws {
        let onServer = try await StoreSession.onPostgres()
        try await onServer.add("ev", base + "/sse?count=7&drop=2&retry=50", kind: "sse")
        let run = try await onServer.feedcli("follow", "--max-entries", "7", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ids(run.stdout) == (1...7).map(String.init), "every event once, in order")
        let status = try await onServer.requireStatus("ev")
        #expect(status["last_event_id"] as? String == "7" && status["entries"] as? Int == 7)
        try await onServer.add("short", base + "/sse?count=3", kind: "sse")
        let first = try await onServer.feedcli("sync", "short", "--jsonl")
        #expect(first.status == 0 && ids(first.stdout) == ["1", "2", "3"], "\(first.stderr)")
        let second = try await onServer.feedcli("sync", "short", "--jsonl")
        #expect(second.status == 0 && second.stdout.isEmpty, "\(second.stderr)")
        #expect(try await lastEventIDs() == [nil, "2", "4", "6", nil, "3"])
    }

    @Test func syncOfAStreamTakesWhatItSendsThenGoesOnFromTheStoredPosition() async throws {
        try await session.add("ev", base + "/sse?count=3", kind: "sse")
        let first = try await session.feedcli("sync", "ev", "--jsonl")
        #expect(first.status == 0 && ids(first.stdout) == ["1", "2", "3"], "\(first.stderr)")
        let second = try await session.feedcli("sync", "ev", "--jsonl")
        #expect(second.status == 0 && second.stdout.isEmpty && second.stderr.isEmpty)
        #expect(try await lastEventIDs() == [nil, "3"], "the next run starts where the last left off")
        let plain = try await session.feedcli("feeds", "list")
        #expect(plain.stdout.contains("last event: ") && plain.stdout.contains(", id 3"), "\(plain.stdout)")
    }

    @Test func aQuietStreamIsReadUntilItIsQuietBySync() async throws {
        // The server holds the connection open after its events: sync ends 2 s after the last byte.
        try await session.add("ev", base + "/sse?count=2&hold=60", kind: "sse")
        let run = try await session.feedcli("sync", "ev", "--jsonl")
        #expect(run.status == 0 && ids(run.stdout) == ["1", "2"], "\(run.stderr)")
    }

    @Test func aSilentConnectionIsDroppedAndMadeAgainButHeartbeatsKeepItAlive() async throws {
        try await session.add("silent", base + "/sse?count=1&hold=60", kind: "sse")
        let run = try await session.feedcli("follow", "--idle-timeout", "1", "--max-time", "4s", "--jsonl")
        #expect(run.status == 0 && ids(run.stdout) == ["1"], "\(run.stderr)")
        let silent = try await lastEventIDs()
        #expect(silent.count >= 2 && silent.dropFirst().allSatisfy { $0 == "1" }, "remade from event 1: \(silent)")
        try await session.add("beating", base + "/sse?count=1&hold=60&heartbeat=0.2", kind: "sse")
        let beating = try await session.feedcli(
            "follow", "beating", "--idle-timeout", "1", "--max-time", "3s", "--jsonl")
        #expect(beating.status == 0 && ids(beating.stdout) == ["1"])
        #expect(try await lastEventIDs().count == silent.count + 1, "one connection: the heartbeats kept it")
    }

    @Test func untilIdleEndsASessionWithoutEventsHeartbeatsNotCounting() async throws {
        try await session.add("ev", base + "/sse?count=2&hold=60&heartbeat=0.2", kind: "sse")
        let run = try await session.feedcli("follow", "--until-idle", "1s", "--jsonl")
        #expect(run.status == 0 && ids(run.stdout) == ["1", "2"], "\(run.stderr)")
    }

    @Test func sigtermEndsTheSessionWithEverythingPrintedCommitted() async throws {
        try await session.add("ev", base + "/sse?count=3&hold=60", kind: "sse")
        let started = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--jsonl"]))
        #expect(await waitUntilStored(3, feed: "ev"))
        kill(started.process.processIdentifier, SIGTERM)
        let run = await started.finish()
        #expect(run.status == 0, "SIGTERM is how a follow ends: \(run.stderr)")
        #expect(ids(run.stdout) == ["1", "2", "3"])
        let again = try await session.feedcli("follow", "--until-idle", "1s", "--jsonl")
        #expect(again.status == 0 && again.stdout.isEmpty, "nothing is delivered twice")
    }

    /// A stream faster than its reader: stdout is not read for two seconds, so printing waits,
    /// the parsed groups pile up between the two stages, the backlog fills and the server waits
    /// at the socket; then everything flows again and each of the 30,000 events (1.7 MB, more
    /// than the backlog holds) is printed once, in order. Anything that kept the receipts of
    /// read bytes past their turn would hang this run.
    @Test func aStreamFasterThanItsReaderWaitsAtTheSocketAndThenFlows() async throws {
        try await session.add("ev", base + "/sse?count=30000&hold=60", kind: "sse")
        let run = try await Feedcli.shell(
            #""$FEEDCLI" follow --max-entries 30000 --jsonl --state "$S" | (sleep 2; cat)"#,
            environment: ["S": session.state])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ids(run.stdout) == (1...30000).map(String.init), "every event once, in order")
        #expect(try await session.requireStatus("ev")["entries"] as? Int == 30000)
    }

    @Test func aKilledFollowLosesNothingAndDeliversNothingTwice() async throws {
        try await session.add("ev", base + "/sse?count=3&hold=60", kind: "sse")
        let started = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--jsonl"]))
        #expect(await waitUntilStored(3, feed: "ev"))
        kill(started.process.processIdentifier, SIGKILL)  // no handler runs: the store is as it was left
        let killed = await started.finish()
        #expect(killed.status == SIGKILL, "killed, not ended")
        #expect(Set(ids(killed.stdout)).isSubset(of: ["1", "2", "3"]))
        // The next session starts from the stored position (Last-Event-ID 3): the server replays
        // nothing older, and nothing stored is printed again.
        let next = try await session.feedcli("follow", "--until-idle", "1s", "--jsonl")
        #expect(next.status == 0 && next.stdout.isEmpty, "\(next.stderr)")
        #expect(try await lastEventIDs().last == "3")
        #expect(try await session.requireStatus("ev")["entries"] as? Int == 3)
    }

    @Test func aStoredIDThatCouldSplitAHeaderIsNotSent() async throws {
        try await session.add("ev", base + "/sse?count=1", kind: "sse")
        // An edited store: an id no stream could have given (a line end would end the header).
        let edit = try await Feedcli.shell(
            #"""
            python3 -c '
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("UPDATE feed SET last_event_id = ?, last_event_at = ? WHERE name = ?", ("1\r\nX-Injected: yes", "2026-11-25T00:00:00Z", "ev"))
            db.commit()
            ' "$S"
            """#, environment: ["S": session.state])
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(try await session.feedcli("sync", "ev", "--jsonl").status == 0)
        #expect(try await lastEventIDs() == [nil], "sent without it")
    }

    @Test func aServerThatAnswers204EndsTheStreamForGood() async throws {
        try await session.add("gone", base + "/status/204", kind: "sse")
        let run = try await session.feedcli("follow")
        #expect(run.status == 0)
        #expect(run.stderr.contains("ended the stream (HTTP 204): not reconnecting"), "\(run.stderr)")
        #expect(try await lastEventIDs().count == 1, "no reconnection")
    }

    @Test(arguments: [
        ("/status/401", Int32(77)), ("/status/403", 77), ("/status/404", 69), ("/status/410", 69), ("/wrongtype", 65),
    ])
    func refusalsAndAWrongContentTypeEndTheFeedWithTheirCode(path: String, code: Int32) async throws {
        try await session.add("s", base + path, kind: "sse")
        let run = try await session.feedcli("follow")
        #expect(run.status == code, "\(run.stderr)")
        #expect(try await lastEventIDs().count <= 1, "not retried")
    }

    @Test func oneFeedsFailureLeavesTheOthersFollowed() async throws {
        try await session.add("broken", base + "/status/404", kind: "sse")
        try await session.add("ok", base + "/sse?count=2&hold=60", kind: "sse")
        let run = try await session.feedcli("follow", "--until-idle", "1s", "--jsonl")
        #expect(ids(run.stdout) == ["1", "2"])
        #expect(run.status == 69 && run.stderr.contains("broken"), "\(run.stderr)")
    }

    @Test func eventTypesChooseWhatIsAnEntry() async throws {
        try await session.add("all", base + "/sse?count=2&type=tick", kind: "sse")
        #expect(
            ids(try await session.feedcli("sync", "all", "--jsonl").stdout) == ["1", "2"],
            "every event with a JSON object")
        #expect(
            try await session.feedcli(
                "feeds", "add", "chosen", base + "/sse?count=2&type=tick", "--kind", "sse", "--event", "update"
            ).status == 0)
        let chosen = try await session.feedcli("sync", "chosen", "--jsonl", "-v")
        #expect(chosen.stdout.isEmpty && chosen.stderr.contains("not an entry: a tick event"), "\(chosen.stderr)")
        let refused = try await session.feedcli(
            "feeds", "add", "x", base + "/ndjson", "--kind", "ndjson", "--event", "a")
        #expect(refused.status == 64)
    }

    @Test func ndjsonLinesAreItems() async throws {
        try await session.add("lines", base + "/ndjson?count=3", kind: "ndjson")
        let run = try await session.feedcli("sync", "lines", "--jsonl")
        #expect(run.status == 0 && ids(run.stdout) == ["1", "2", "3"], "\(run.stderr)")
    }

    @Test func anNDJSONStreamResumesFromItsCursor() async throws {
        #expect(
            try await session.feedcli(
                "feeds", "add", "lines", base + "/ndjson?grow=1", "--kind", "ndjson",
                "--cursor", ".[-1].seq", "--cursor-param", "after"
            ).status == 0)
        #expect(ids(try await session.feedcli("sync", "lines", "--jsonl").stdout) == ["1", "2", "3"])
        #expect(
            ids(try await session.feedcli("sync", "lines", "--jsonl").stdout) == ["4", "5"], "from the stored cursor")
        #expect(try await lastEventIDs().suffix(4) == [nil, "after=None", nil, "after=3"])
        let refused = try await session.feedcli(
            "feeds", "add", "e", base + "/sse", "--kind", "sse", "--cursor", ".x", "--cursor-param", "c")
        #expect(refused.status == 64, "an SSE stream resumes by Last-Event-ID")
    }

    /// `--cursor` runs on the newest line read, as a user writes it for one item (`.seq`); it
    /// was run on the whole batch, and `.id` failed with "Cannot index array with string".
    @Test func anNDJSONCursorRunsOnTheNewestLine() async throws {
        #expect(
            try await session.feedcli(
                "feeds", "add", "lines", base + "/ndjson?grow=1", "--kind", "ndjson",
                "--cursor", ".seq", "--cursor-param", "after"
            ).status == 0)
        let first = try await session.feedcli("sync", "lines", "--jsonl")
        #expect(first.status == 0 && ids(first.stdout) == ["1", "2", "3"], "\(first.stderr)")
        #expect(
            ids(try await session.feedcli("sync", "lines", "--jsonl").stdout) == ["4", "5"], "from the stored cursor")
        #expect(try await lastEventIDs().suffix(4) == [nil, "after=None", nil, "after=3"])
    }

    /// An NDJSON line that is not an object (not JSON, another JSON value, nested deeper than
    /// feedcli reads) is a skipped item, named on stderr with its line and the true reason; it
    /// was dropped with a word under -v only.
    @Test func anNDJSONLineThatIsNotAnItemIsNamed() async throws {
        let deep = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)
        let body =
            [#"{"id":"1"}"#, "not json", "[1,2]", #"{"id":"2","x":"# + deep + "}", #"{"id":"3"}"#].joined(
                separator: "\n") + "\n"
        let server = try LoopbackServer { _, connection in
            connection.respond(200, headers: [("Content-Type", "application/x-ndjson")], text: body)
        }
        try await session.add("bad", server.baseURL + "/lines", kind: "ndjson")
        let run = try await session.feedcli("sync", "bad", "--jsonl")
        #expect(run.status == 0 && ids(run.stdout) == ["1", "3"], "\(run.stderr)")
        let url = server.baseURL + "/lines"
        #expect(run.stderr.contains("bad: warning: skipped item 2 of \(url): it is not JSON"), "\(run.stderr)")
        #expect(run.stderr.contains("skipped item 3 of \(url): it is an array, not a JSON object"), "\(run.stderr)")
        #expect(run.stderr.contains("skipped item 4 of \(url): it is not JSON (nested deeper than"), "\(run.stderr)")
        #expect(try await session.requireStatus("bad")["last_skipped"] as? Int == 3)
    }

    @Test func eventsSharingOneIDAreStillOneEntryEach() async throws {
        // EventStreams can give several events one `id:`; entries are keyed by the item's own id.
        try await session.add("shared", base + "/sse?count=3&shared_id=1", kind: "sse")
        #expect(ids(try await session.feedcli("sync", "shared", "--jsonl").stdout) == ["1", "2", "3"])
    }

    @Test func aRealMastodonStreamGivesItsStatusesAndLeavesDeletesOut() async throws {
        try await session.add("m", base + "/fixture/mastodon-public.sse", kind: "mastodon")
        let run = try await session.feedcli("sync", "m", "--jsonl", "-v")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            Set(ids(run.stdout)) == [
                "102775370117886890", "104072557586605107", "104072561966487967", "104072567176319159",
            ])
        #expect(run.stderr.contains("not an entry: a delete event"))
        let lines = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let status = try #require(lines.first { $0["id"] as? String == "104072557586605107" })
        #expect(status["author"] as? String == "it_was_inevitable@botsin.space")
        #expect(status["url"] as? String == "https://botsin.space/@it_was_inevitable/104072557374505694")
        #expect(status["published"] as? String == "2020-04-27T21:00:00Z")
    }

    @Test func aRealWikimediaEventIsKeyedByItsMetaID() async throws {
        try await session.add("w", base + "/fixture/wikimedia-recentchange.sse", kind: "wikimedia")
        let run = try await session.feedcli("sync", "w", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ids(run.stdout) == ["67a266c6-6bb9-4923-826c-2b6bd04553a2"])
        #expect(
            run.stdout.contains(#""author":"Vysotsky""#)
                && run.stdout.contains(#""title":"File:Iranian Army Ground Forces"#))
        let status = try await session.requireStatus("w")
        #expect((status["last_event_id"] as? String)?.hasPrefix(#"[{"topic":"eqiad.mediawiki.recentchange""#) == true)
    }

    @Test func aMastodonStreamCatchesUpThroughItsTimelineWithMinID() async throws {
        // First session: three statuses arrive live; nothing is stored yet, so nothing to catch up.
        try await session.add("m", base + "/api/v1/streaming/public?live=1001-1003&hold=60", kind: "mastodon")
        let first = try await session.feedcli("follow", "--until-idle", "1s", "--jsonl")
        #expect(first.status == 0 && ids(first.stdout) == ["1001", "1002", "1003"], "\(first.stderr)")
        // Meanwhile 1004-1008 were posted; the next session's stream sends only 1009, live. The
        // timeline is read forward from the newest stored status, two a page, until empty.
        #expect(
            try await session.feedcli(
                "feeds", "add", "m", base + "/api/v1/streaming/public?live=1009-1009&hold=60",
                "--kind", "mastodon", "--replace"
            ).status == 0)
        let second = try await session.feedcli("follow", "--until-idle", "1s", "--jsonl")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(ids(second.stdout).sorted() == (1004...1009).map(String.init), "every status once")
        #expect(Array(ids(second.stdout).prefix(5)) == (1004...1008).map(String.init), "the gap first, oldest first")
        let run = try await Feedcli.shell(
            #"python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "$U""#,
            environment: ["U": base + "/timeline-log"])
        #expect(
            run.stdout.contains(#"["1003", "1005", "1007", "1009"]"#), "min_id paging, never since_id: \(run.stdout)")
    }

    /// `--max-entries` counts the entries a catch-up delivers: a follow whose entries all come
    /// from the catch-up ends at the limit, as cron needs (it ran until killed).
    @Test func maxEntriesCountsWhatTheCatchUpDelivers() async throws {
        try await session.add("m", base + "/api/v1/streaming/public?live=1001-1001&hold=60", kind: "mastodon")
        let first = try await session.feedcli("follow", "--max-entries", "1", "--jsonl")
        #expect(first.status == 0 && ids(first.stdout) == ["1001"], "\(first.stderr)")
        // The stream now sends nothing for a minute; the timeline has 1002-1009.
        #expect(
            try await session.feedcli(
                "feeds", "add", "m", base + "/api/v1/streaming/public?live=1-0&hold=60",
                "--kind", "mastodon", "--replace"
            ).status == 0)
        let limited = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--max-entries", "3", "--jsonl"]))
        let run = await limited.finish(seconds: 20)
        #expect(run.status == 0, "it ends at the limit: \(run.stderr)")
        #expect(ids(run.stdout) == ["1002", "1003", "1004"], "\(run.stderr)")
        let next = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--max-entries", "2", "--jsonl"]))
        #expect(ids(await next.finish(seconds: 20).stdout) == ["1005", "1006"], "the next run goes on from there")
    }

    /// A second `follow` of a feed another `follow` holds says so once, ends at its own
    /// `--max-time`, and exits 75 (it read nothing); it said nothing, ran past its limit and
    /// exited 0.
    @Test func aFollowOfABusyFeedSaysSoAndEndsWithinItsLimitWith75() async throws {
        try await session.add("ev", base + "/sse?count=1&hold=60", kind: "sse")
        let holder = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "ev", "--jsonl"]))
        #expect(
            await holder.waitUntilItHoldsOpen(fileEndingWith: ".locks/follow-ev.lock"), "the first follow owns the feed"
        )
        let started = ContinuousClock.now
        let second = try await session.feedcli("follow", "ev", "--max-time", "2s", "--jsonl")
        let took = ContinuousClock.now - started
        kill(holder.process.processIdentifier, SIGTERM)
        _ = await holder.finish()
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stdout.isEmpty)
        #expect(
            second.stderr.components(
                separatedBy: "followed by feedcli follow (pid \(holder.process.processIdentifier))"
            )
            .count == 2, "said once, naming the run: \(second.stderr)")
        #expect(second.stderr.contains("another run followed ev for the whole of this run"), "\(second.stderr)")
        #expect(took < .seconds(15), "within its own limit (2 s and a start), took \(took)")
        // Once the first lets go, a follow takes the feed at once (the first printed event 1).
        let after = try await session.feedcli("follow", "ev", "--until-idle", "1s", "--jsonl")
        #expect(after.status == 0 && !after.stderr.contains("another run"), "\(after.stderr)")
    }

    /// An event id too long to be a request header is not kept as the position (the next
    /// connection failed before it was sent, for good): said once, the last usable id kept.
    @Test func anEventIDTooLongForAHeaderIsIgnoredWithAWarning() async throws {
        let long = String(repeating: "x", count: 2_000)
        let server = try LoopbackServer { request, connection in
            connection.respond(
                200, headers: [("Content-Type", "text/event-stream")],
                text: "id: 5\ndata: {\"id\":\"1\"}\n\nid: \(long)\ndata: {\"id\":\"2\"}\n\ndata: {\"id\":\"3\"}\n\n")
        }
        try await session.add("long", server.baseURL + "/sse", kind: "sse")
        let run = try await session.feedcli("sync", "long", "--jsonl")
        #expect(run.status == 0 && ids(run.stdout) == ["1", "2", "3"], "\(run.stderr)")
        #expect(
            run.stderr.components(separatedBy: "longer than 1024 bytes is ignored").count == 2, "once: \(run.stderr)")
        #expect(try await session.requireStatus("long")["last_event_id"] as? String == "5")
        #expect(try await session.feedcli("sync", "long", "--jsonl").status == 0, "the next connection is made")
        #expect(server.requests.last?.header("Last-Event-ID") == "5")
    }

    /// `--max-time` ends a follow that waits out a server's `Retry-After` (an hour here), as it
    /// ends one that is connected; the follow ran on past its limit, for up to the 7 days a
    /// Retry-After may ask.
    @Test func maxTimeEndsAFollowWaitingOutARetryAfter() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(503, headers: [("Retry-After", "3600")], text: "")
        }
        try await session.add("later", server.baseURL + "/sse", kind: "sse")
        let started = ContinuousClock.now
        let run = try await session.feedcli("follow", "later", "--max-time", "3s")
        let took = ContinuousClock.now - started
        // The feed is unavailable at the end: its 503 is its state, said once as it came.
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "later: failing (75").count == 2, "\(run.stderr)")
        #expect(took < .seconds(20), "it ends at its limit, not after the hour the server asked: \(took)")
        #expect(server.requests.count == 1, "no request before the Retry-After")
    }

    @Test func anyStreamCatchesUpThroughTheURLItNames() async throws {
        #expect(
            try await session.feedcli(
                "feeds", "add", "s", base + "/sse?count=1&hold=60", "--kind", "sse",
                "--catch-up", base + "/api/v1/timelines/public?min_id=1007"
            ).status == 0)
        let run = try await session.feedcli("follow", "--until-idle", "1s", "--jsonl")
        #expect(run.status == 0 && ids(run.stdout) == ["1008", "1009", "1"], "\(run.stderr)")
        #expect(
            try await session.feedcli("feeds", "add", "p", base + "/wrongtype", "--kind", "linked", "--catch-up", base)
                .status == 64)
    }

    @Test func aStreamIsFoundOutByItsContentType() async throws {
        let added = try await session.feedcli("feeds", "add", "found", base + "/sse?count=1")
        #expect(
            added.status == 0 && added.stderr.contains("sse: a stream of Server-Sent Events (text/event-stream"),
            "\(added.stderr)")
        let lines = try await session.feedcli("feeds", "add", "lines", base + "/ndjson?count=1")
        #expect(lines.status == 0 && lines.stderr.contains("ndjson"), "\(lines.stderr)")
    }
}
