import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `feedcli search` end to end: the built binary on a store a sync of a JSON Feed made.
@Suite("Search end to end", .serialized, .timeLimit(.minutes(2)))
struct SearchTests {
    let session = StoreSession()
    let server: LoopbackServer

    static let feed = #"""
        {"version":"https://jsonfeed.org/version/1.1","title":"Notes","items":[
        {"id":"1","title":"Swift concurrency","content_text":"Actors and tasks in Swift 6, and more","date_published":"2026-11-01T10:00:00Z"},
        {"id":"2","title":"Rust ownership","content_text":"Borrowing, lifetimes; not swift at all","date_published":"2026-11-02T10:00:00Z"},
        {"id":"3","title":"Un café","content_html":"<p>Le <b>café</b> à Paris</p>","date_published":"2026-11-03T10:00:00Z"}
        ]}
        """#

    init() async throws {
        server = try LoopbackServer { _, connection in connection.respond(200, text: Self.feed) }
        try await session.add("notes", server.baseURL + "/feed.json", kind: "jsonfeed")
        #expect(try await session.feedcli("sync", "notes").status == 0)
    }

    @Test func matchesComeNewestFirstWithTheirWordsMarked() async throws {
        let run = try await session.feedcli("search", "swift")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("@2 notes 2026-11-02 Rust ownership: ") == true, "\(run.stdout)")
        #expect(lines.first?.contains("not [swift] at all") == true, "brackets, not a terminal: \(run.stdout)")
        #expect(lines.last?.contains("Actors and tasks in [Swift] 6") == true, "\(run.stdout)")
        let accents = try await session.feedcli("search", "CAFE")
        #expect(accents.stdout.contains("Le [café] à Paris"), "HTML as text, accents folded: \(accents.stdout)")
    }

    @Test func aTerminalShowsBoldUnlessNoColor() async throws {
        let arguments = ["search", "lifetimes", "--state", session.state]
        let bold = try await Feedcli.onTerminal(arguments)
        #expect(bold.contains("\u{1B}[1mlifetimes\u{1B}[22m"), "\(bold)")
        let plain = try await Feedcli.onTerminal(arguments, environment: ["NO_COLOR": "1"])
        #expect(!plain.contains("\u{1B}[1m") && plain.contains("[lifetimes]"), "\(plain)")
    }

    @Test func jsonHasListsShapeWithAnExcerptAndARank() async throws {
        let run = try await session.feedcli("search", "swift", "--json", "--rank")
        #expect(run.status == 0, "\(run.stderr)")
        let hits = try #require(run.json as? [[String: Any]])
        #expect(hits.map { $0["id"] as? String } == ["1", "2"], "the title's match first")
        for key in ["feed", "id", "title", "text", "author", "url", "published", "fetched_at", "read", "source"] {
            #expect(hits.allSatisfy { $0.keys.contains(key) }, "\(key)")
        }
        #expect((hits.first?["excerpt"] as? String)?.contains("Actors and tasks in Swift 6") == true)
        let ranks = hits.compactMap { $0["rank"] as? Double }
        #expect(ranks.count == 2 && ranks[0] > ranks[1])
        let lines = try await session.feedcli("search", "swift", "--jsonl")
        #expect(lines.stdout.split(separator: "\n").count == 2 && !lines.stdout.contains("\"rank\""))
    }

    @Test func nothingMatchingIsOneAndAnEmptyQueryIsAUsageError() async throws {
        let none = try await session.feedcli("search", "haskell")
        #expect(none.status == 1 && none.stdout.isEmpty)
        let json = try await session.feedcli("search", "haskell", "--json")
        #expect(json.status == 1 && json.stdout.isEmpty)
        let signs = try await session.feedcli("search", "NEAR( AND ^ * : \"")
        #expect(signs.status == 1 && signs.stderr.isEmpty, "never the engine's error: \(signs.stderr)")
        let empty = try await session.feedcli("search", "  ")
        #expect(empty.status == 64 && empty.stderr.contains("nothing to search for"))
        // A query that starts with `-` follows `--`, as any operand would.
        let excluded = try await Feedcli.run(["search", "--state", session.state, "--", "-swift"])
        #expect(excluded.stdout.contains("Un café") && excluded.stdout.split(separator: "\n").count == 1)
    }

    @Test func unreadSinceLimitAndFeedsNarrowIt() async throws {
        #expect(try await session.feedcli("read", "1", "--feed", "notes").status == 0)
        let unread = try await session.feedcli("search", "swift", "--unread")
        #expect(unread.stdout.split(separator: "\n").count == 1 && unread.stdout.contains("Rust"))
        let limited = try await session.feedcli("search", "swift", "-n", "1")
        #expect(limited.stdout.split(separator: "\n").count == 1)
        let recent = try await session.feedcli("search", "swift", "--since", "1d")
        #expect(recent.status == 1, "published weeks ago: \(recent.stdout)")
        let unknown = try await session.feedcli("search", "swift", "nope")
        #expect(unknown.status == 66)
        #expect(try await session.feedcli("search", "swift", "--since", "-1d").status == 64)
    }

    /// A store made before search gets its index built by the first search, said once (the
    /// schema is brought up to date by whichever command opens it first: `list` here).
    @Test func aStoreFromBeforeSearchIsIndexedOnceAndSaidOnce() async throws {
        let downgrade = #"""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("DROP TABLE entry_search")
            db.execute("DROP TABLE search_mark")
            db.execute("DELETE FROM grdb_migrations WHERE identifier = 'v18: search'")
            db.commit()
            """#
        let made = try await Feedcli.shell(
            #"python3 -c "$SCRIPT" "$STATE""#, environment: ["SCRIPT": downgrade, "STATE": session.state])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try await session.feedcli("list").status == 0)
        let first = try await session.feedcli("search", "swift")
        #expect(first.status == 0 && first.stdout.split(separator: "\n").count == 2, "\(first.stdout)\(first.stderr)")
        #expect(first.stderr.contains("building the search index"), "\(first.stderr)")
        let second = try await session.feedcli("search", "swift")
        #expect(second.status == 0 && second.stderr.isEmpty, "said once: \(second.stderr)")
    }
}
