import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// A search killed while it indexes a large store leaves a store whose index is whole and
/// agrees with its marks: each step of the catch-up is a transaction, so a kill loses at most
/// the step it was in, and the next search takes it up again.
@Suite("Search: killed while indexing", .serialized, .timeLimit(.minutes(3)))
struct SearchIndexKillTests {
    @Test func aSearchKilledWhileIndexingLeavesAWholeIndex() async throws {
        let server = try await PythonServer.streams()
        let session = StoreSession()
        let count = 20_000
        try await session.add("lines", "http://127.0.0.1:\(server.port)/ndjson?count=\(count)", kind: "ndjson")
        // A debug build beside the other suites may take longer than sync's 30 s.
        #expect(try await session.feedcli("sync", "lines", "--quiet", "--timeout", "300").status == 0)
        let stored = try #require(try await session.requireStatus("lines")["entries"] as? Int)
        #expect(stored == count)
        for delay in [20, 60, 120, 250] {
            let run = try Feedcli.start(["search", "line", "--state", session.state])
            try await Task.sleep(for: .milliseconds(delay))
            run.process.send(SIGKILL)
            _ = await run.finish(seconds: 30)
            let check = try await Feedcli.shell(
                #"""
                python3 -c 'import sqlite3,sys
                db = sqlite3.connect(sys.argv[1])
                print(db.execute("PRAGMA integrity_check").fetchone()[0])
                db.execute("INSERT INTO entry_search (entry_search, rank) VALUES (\"integrity-check\", 1)")
                lower, upper = db.execute("SELECT lower, upper FROM search_mark").fetchone()
                held = db.execute("SELECT COUNT(*) FROM entry WHERE seq >= ? AND seq < ?", (lower, upper)).fetchone()[0]
                print(db.execute("SELECT COUNT(*) FROM entry_search").fetchone()[0] == held)' "$S"
                """#, environment: ["S": session.state])
            #expect(check.stdout == "ok\nTrue\n", "after a kill at \(delay) ms: \(check.stdout)\(check.stderr)")
        }
        let all = try await session.feedcli("search", "line", "--limit", "0", "--jsonl")
        #expect(all.status == 0 && JSONLines.ids(all.stdout).count == stored, "\(all.stderr)")
    }

    /// Indexing many entries shows how far it has come on a terminal, and clears the line; a
    /// search with nothing to index shows nothing.
    @Test func aLongIndexingShowsItsProgressOnATerminal() async throws {
        let server = try await PythonServer.streams()
        let session = StoreSession()
        try await session.add("lines", "http://127.0.0.1:\(server.port)/ndjson?count=12000", kind: "ndjson")
        #expect(try await session.feedcli("sync", "lines", "--quiet", "--timeout", "300").status == 0)
        let first = try await Feedcli.onTerminal(["search", "line", "-n", "1", "--state", session.state])
        #expect(first.contains("feedcli: indexing for search: 5000 of 12000 entries"), "\(first)")
        #expect(first.contains("\r\u{1B}[K@"), "the line cleared before the match: \(first)")
        let second = try await Feedcli.onTerminal(["search", "line", "-n", "1", "--state", session.state])
        #expect(!second.contains("indexing"), "\(second)")
    }
}
