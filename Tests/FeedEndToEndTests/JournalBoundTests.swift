import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedStore

/// The store's journal (`-wal`) is at most 8 MiB after any command exits (contract,
/// Performance), so no short command pays for an earlier big one; stores whose journal an older
/// feedcli let grow heal on their next run.
@Suite("a bounded journal", .serialized, .timeLimit(.minutes(3)))
struct JournalBoundTests {
    let session = StoreSession()
    var state: String { session.state }
    static let bound: Int64 = 8 * 1024 * 1024

    func journalSize() -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: state + "-wal"))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// A JSON Feed page of `count` items, newest first.
    static func page(_ count: Int, from first: Int = 1) -> String {
        let items = (first..<(first + count)).reversed().map {
            #"{"id":"\#($0)","content_text":"item \#($0) \#(String(repeating: "x", count: 100))"}"#
        }
        return #"{"version":"https://jsonfeed.org/version/1.1","title":"big","items":["# + items.joined(separator: ",")
            + "]}"
    }

    @Test func aBigSyncLeavesAShortJournal() async throws {
        let body = Self.page(40_000)
        let server = try LoopbackServer { _, connection in
            connection.respond(200, headers: [("Content-Type", "application/json")], text: body)
        }
        try await session.add("big", server.baseURL + "/feed", kind: "jsonfeed")
        let run = try await session.feedcli("sync", "big", "--quiet")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(journalSize() <= Self.bound, "journal after the sync: \(journalSize()) bytes")
        #expect(try await session.status("big")?["entries"] as? Int == 40_000, "every entry is in the store")
        // Committed in batches, the sync never grew the file past 4 MiB; what the next run
        // would read is the frames of the current generation, and the sync cut those too.
        #expect(
            StoreJournal.frames(besideStoreAt: state) <= StoreJournal.framesThreshold,
            "frames left for the next run to read: \(StoreJournal.frames(besideStoreAt: state))")
    }

    /// An older feedcli (or a run killed mid-sync) leaves a 50 MB journal: python writes it
    /// into a store feedcli made, with automatic checkpoints off, and exits without closing.
    func leaveABigJournal(entries: Int) async throws {
        let script = """
            import os, sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA wal_autocheckpoint = 0")
            db.execute("BEGIN")
            pad = "y" * 1000
            db.executemany("INSERT INTO entry (feed, id, title, text, fetched_at, read, source) VALUES ('p', ?, ?, ?, '2026-11-21T19:00:00Z', 1, '{}')",
                           ((f"old{n}", f"t{n}", pad) for n in range(int(sys.argv[2]))))
            # The feed's counts, as feedcli's commit keeps them (schema v10: once a batch).
            db.execute("UPDATE feed SET entry_count = entry_count + ? WHERE name = 'p'", (int(sys.argv[2]),))
            db.execute("COMMIT")
            os._exit(0)
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, state, String(entries)]
        try await python.runToExit()
        #expect(python.terminationStatus == 0)
    }

    @Test(arguments: [["list", "--limit", "1"], ["status"], ["next", "p"]])
    func aStoreWithAHugeJournalHealsOnItsNextRun(command: [String]) async throws {
        let server = try PostsServer(available: 3)
        try await session.add("p", server.url, kind: "indexed")
        #expect(try await session.feedcli("sync", "p").status == 0)
        try await leaveABigJournal(entries: 45_000)
        #expect(journalSize() > 50_000_000, "the set-up left a big journal")
        let run = try await session.run(command)
        #expect([0, 1].contains(run.status), "\(run.stderr)")
        #expect(journalSize() <= Self.bound, "after \(command): \(journalSize()) bytes")
        #expect(
            try await session.status("p")?["entries"] as? Int == 45_003, "nothing committed is lost by the checkpoint")
    }
}
