import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Running for months, end to end (the contract's "Running for months"): `--keep` and
/// `--remember` as the built `feedcli` takes, shows and exports them; a stream that replays what
/// was pruned delivers none of it again, on SQLite and PostgreSQL; a store from before retention
/// is converted once; `store compact` gives the space back.
@Suite("Running for months: retention end to end", .serialized, .timeLimit(.minutes(3)))
struct RetentionTests {
    let server: PythonServer
    let base: String

    init() async throws {
        server = try await PythonServer.streams()
        base = "http://127.0.0.1:\(server.port)"
    }

    @Test func keepAndRememberAreSetShownExportedAndImported() async throws {
        let session = StoreSession()
        try await session.add("polled", base + "/sse?count=1", kind: "linked")
        try await session.add("live", base + "/sse?count=1", kind: "sse")
        var polled = try await session.requireStatus("polled")
        let live = try await session.requireStatus("live")
        #expect(polled["keep"] as? String == "all" && polled["remember"] as? String == "90d", "\(polled)")
        #expect(live["keep"] as? String == "7d" && live["remember"] as? String == "1d", "\(live)")
        #expect(live["pruned"] as? Int == 0 && live["pruned_unread"] as? Int == 0)

        let set = try await session.feedcli("feeds", "set", "polled", "--keep", "10000", "--remember", "forever")
        #expect(set.status == 0, "\(set.stderr)")
        polled = try await session.requireStatus("polled")
        #expect(polled["keep"] as? String == "10000" && polled["remember"] as? String == "forever")
        let list = try await session.feedcli("feeds", "list")
        #expect(list.stdout.contains("keeps the newest 10000, remembers pruned ids forever"), "\(list.stdout)")
        #expect(list.stdout.contains("keeps what was stored within 7d, remembers pruned ids for 1d"), "\(list.stdout)")

        for bad in [
            ["--keep", "0"], ["--keep", "7x"], ["--keep", "99999999d"], ["--remember", "all"], ["--keep", "-5"],
        ] {
            let refused = try await session.run(["feeds", "set", "polled"] + bad)
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
        }

        // Exported with the feed, imported back by another store.
        let opml = try await session.feedcli("feeds", "export")
        #expect(
            opml.stdout.contains(#"keep="10000""#) && opml.stdout.contains(#"remember="forever""#), "\(opml.stdout)")
        let file = session.state + ".opml"
        try opml.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let other = StoreSession()
        let imported = try await other.feedcli("feeds", "import", file)
        #expect(imported.status == 0, "\(imported.stderr)")
        let back = try await other.requireStatus("polled")
        #expect(back["keep"] as? String == "10000" && back["remember"] as? String == "forever", "\(back)")
    }

    /// `feeds set` changes several feeds, or every feed, at once; a name it does not know
    /// changes none of them.
    @Test func feedsSetChangesSeveralFeedsOrAllOfThem() async throws {
        let session = StoreSession()
        for name in ["a", "b", "c"] { try await session.add(name, base + "/sse?count=1", kind: "linked") }
        let unknown = try await session.run(["feeds", "set", "a", "nosuch", "--keep", "5"])
        #expect(unknown.status == 66, "\(unknown.stderr)")
        #expect(try await session.requireStatus("a")["keep"] as? String == "all", "a typo changes nothing")
        #expect(try await session.feedcli("feeds", "set", "a", "b", "--keep", "5").status == 0)
        #expect(try await session.requireStatus("b")["keep"] as? String == "5")
        #expect(try await session.requireStatus("c")["keep"] as? String == "all")
        let all = try await session.feedcli("feeds", "set", "--all", "--keep", "30d")
        #expect(all.status == 0, "\(all.stderr)")
        for name in ["a", "b", "c"] { #expect(try await session.requireStatus(name)["keep"] as? String == "30d") }
        #expect(try await session.run(["feeds", "set", "--keep", "5"]).status == 64, "names or --all")
        #expect(try await session.run(["feeds", "set", "a", "--all", "--keep", "5"]).status == 64, "not both")
    }

    /// A server that ignores `Last-Event-ID` replays every event on each connection: the ones
    /// pruned are remembered, so nothing is printed twice.
    func replayedEventsThatWerePrunedAreNotDeliveredAgain(_ session: StoreSession) async throws {
        try await session.add("ev", base + "/sse?count=10&replay_all=1", kind: "sse")
        #expect(try await session.feedcli("feeds", "set", "ev", "--keep", "3").status == 0)
        let first = try await session.feedcli("sync", "ev", "--jsonl")
        #expect(first.status == 0 && JSONLines.ids(first.stdout) == (1...10).map(String.init), "\(first.stderr)")
        let status = try await session.requireStatus("ev")
        #expect(
            status["entries"] as? Int == 3 && status["pruned"] as? Int == 7 && status["pruned_unread"] as? Int == 7,
            "sync stores what it prints unread: \(status)")
        let again = try await session.feedcli("sync", "ev", "--jsonl")
        #expect(
            again.status == 0 && again.stdout.isEmpty, "replayed, pruned, remembered: \(again.stdout)\(again.stderr)")
        let listed = try await session.feedcli("list", "ev", "--jsonl")
        #expect(JSONLines.ids(listed.stdout) == ["8", "9", "10"], "\(listed.stdout)")
    }

    @Test func aReplayOfPrunedEventsDeliversNothingTwice() async throws {
        try await replayedEventsThatWerePrunedAreNotDeliveredAgain(StoreSession())
    }

    @Test func aReplayOfPrunedEventsDeliversNothingTwiceOnPostgreSQL() async throws {
        try await replayedEventsThatWerePrunedAreNotDeliveredAgain(try await StoreSession.onPostgres())
    }

    @Test func aStoreFromBeforeRetentionIsConvertedOnceAndCompactGivesSpaceBack() async throws {
        let session = StoreSession()
        try await session.add("ev", base + "/sse?count=400", kind: "sse")
        #expect(try await session.feedcli("sync", "ev").status == 0)
        // As a store made before retention: no auto-vacuum, a stream feed that never chose, and
        // a schema a migration behind (v17 undone), which a reading command brings up to date.
        #expect(
            try await editStore(
                at: session.state,
                """
                UPDATE feed SET keep = NULL, remember = NULL;
                CREATE TABLE remembered_id (key INTEGER PRIMARY KEY, until INTEGER);
                CREATE TABLE remembered_staged (key INTEGER PRIMARY KEY, until INTEGER);
                DROP TABLE remembered;
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v17:%';
                PRAGMA auto_vacuum = NONE; VACUUM
                """))
        for command in [["status"], ["list", "--json"], ["list", "--jsonl", "--limit", "3"], ["feeds", "list"]] {
            let read = try await session.run(command)
            #expect(
                read.status == 0 && !read.stderr.contains("converting"),
                "a reading command converts nothing: \(command) \(read.stderr)")
        }
        let mode = try await Feedcli.shell(
            #"python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA auto_vacuum").fetchone()[0])' "$S""#,
            environment: ["S": session.state])
        #expect(mode.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "unconverted: \(mode.stdout)")
        let write = try await session.feedcli("sync", "ev")
        #expect(write.status == 0, "\(write.stderr)")
        #expect(write.stderr.components(separatedBy: "converting the store").count == 2, "said once: \(write.stderr)")
        #expect(
            write.stderr.contains("feedcli feeds set ev --keep 7d"),
            "a stream from before is told how to bound it: \(write.stderr)")
        let later = try await session.feedcli("sync", "ev")
        #expect(!later.stderr.contains("converting") && !later.stderr.contains("--keep"), "once: \(later.stderr)")
        #expect(try await session.requireStatus("ev")["keep"] as? String == "all")

        #expect(try await session.feedcli("feeds", "set", "ev", "--keep", "10").status == 0)
        func onDisk() -> Int {
            [session.state, session.state + "-wal"].reduce(0) {
                $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0)
            }
        }
        let sizeBefore = onDisk()
        let compact = try await session.feedcli("store", "compact")
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(compact.stderr.contains("pruned 390 entries"), "\(compact.stderr)")
        // It ends with the journal copied back and cut to nothing, and says the sizes.
        let journal = (try? FileManager.default.attributesOfItem(atPath: session.state + "-wal")[.size] as? Int) ?? 0
        #expect(journal == 0, "the journal is checkpointed and truncated: \(journal) bytes")
        #expect(
            compact.stderr.firstMatch(of: /; [0-9.]+ [A-Za-z]+ before, [0-9.]+ [A-Za-z]+ now/) != nil,
            "the size before and after: \(compact.stderr)")
        #expect(onDisk() < sizeBefore, "smaller than before: \(onDisk()) of \(sizeBefore) bytes")
        let status = try await session.requireStatus("ev")
        #expect(status["entries"] as? Int == 10 && status["pruned"] as? Int == 390)
        let integrity = try await Feedcli.shell(
            #"python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' "$S""#,
            environment: ["S": session.state])
        #expect(
            integrity.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok",
            "\(integrity.stdout)\(integrity.stderr)")
    }

    /// On a disk too full to convert a store from before retention (the conversion writes a
    /// copy), the ways to free space still work: `feeds set --keep` changes the feed, and the
    /// store is left as it was with a line saying how much room the conversion needs. A small
    /// tmpfs stands for the full disk (root only: skipped, saying so, where none can be mounted).
    @Test func onAFullDiskAStoreFromBeforeRetentionStillTakesKeep() async throws {
        let session = StoreSession()
        try await session.add("ev", base + "/sse?count=2000", kind: "sse")
        #expect(try await session.feedcli("sync", "ev").status == 0)
        #expect(
            try await editStore(at: session.state, "UPDATE feed SET keep = NULL; PRAGMA auto_vacuum = NONE; VACUUM"))
        let script = #"""
            set -e
            dir=$(mktemp -d)
            size=$(( $(stat -c %s "$S") + 196608 ))
            mount -t tmpfs -o size=$size tmpfs "$dir" 2>/dev/null || { echo "no tmpfs"; exit 0; }
            trap 'umount "$dir"' EXIT
            cp "$S" "$dir/feedcli.sqlite"
            head -c 150000 /dev/zero > "$dir/filler" || true
            "$FEEDCLI" feeds set ev --keep 10 --state "$dir/feedcli.sqlite"; echo "status $?"
            "$FEEDCLI" status ev --json --state "$dir/feedcli.sqlite" | python3 -c 'import json,sys; print("keep", json.load(sys.stdin)[0]["keep"])'
            """#
        let run = try await Feedcli.shell(script, environment: ["S": session.state])
        guard !run.stdout.contains("no tmpfs") else {
            print("onAFullDiskAStoreFromBeforeRetentionStillTakesKeep: skipped, no tmpfs can be mounted here")
            return
        }
        #expect(run.stdout.contains("status 0"), "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("keep 10"), "\(run.stdout)")
        #expect(run.stderr.contains("was not converted: the disk is too full"), "\(run.stderr)")
    }

    /// Killed at random moments while a follow prunes every commit: the store opens, its
    /// integrity holds, its counts match its rows (nothing half-pruned), and every event is
    /// printed at least once over the runs.
    @Test func aFollowKilledWhilePruningLeavesAConsistentStore() async throws {
        let session = StoreSession()
        try await session.add("ev", base + "/sse?count=3000&hold=30", kind: "sse")
        #expect(try await session.feedcli("feeds", "set", "ev", "--keep", "50").status == 0)
        var seen = Set<String>()
        for delay in [150, 400, 250, 600, 350] {
            let run = try Feedcli.start(["follow", "ev", "--jsonl", "--state", session.state])
            try await Task.sleep(for: .milliseconds(delay))
            run.process.send(SIGKILL)
            let output = await run.finish(seconds: 30)
            seen.formUnion(JSONLines.ids(output.stdout))
            let check = try await Feedcli.shell(
                #"""
                python3 -c 'import sqlite3,sys
                db = sqlite3.connect(sys.argv[1])
                print(db.execute("PRAGMA integrity_check").fetchone()[0])
                print(db.execute("SELECT entry_count = (SELECT COUNT(*) FROM entry), unread_count = (SELECT COUNT(*) FROM entry WHERE read = 0) FROM feed WHERE name = ?", ("ev",)).fetchone())' "$S"
                """#, environment: ["S": session.state])
            #expect(check.stdout == "ok\n(1, 1)\n", "after a kill at \(delay) ms: \(check.stdout)\(check.stderr)")
        }
        let rest = try await session.feedcli("sync", "ev", "--jsonl")
        seen.formUnion(JSONLines.ids(rest.stdout))
        #expect(seen == Set((1...3000).map(String.init)), "\(3000 - seen.count) never printed")
        let status = try await session.requireStatus("ev")
        #expect(status["entries"] as? Int == 50, "\(status)")
    }
}
