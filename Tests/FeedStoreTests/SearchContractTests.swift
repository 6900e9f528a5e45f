import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedPostgres
@testable import FeedStore

/// Search, the same on every store: SQLite's FTS5 index, PostgreSQL's `tsvector` and the
/// in-memory scan answer each query of one corpus with the same entries.
@Suite("Search: one query corpus, three stores", .timeLimit(.minutes(2)))
struct SearchContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres, memory
        var testDescription: String { rawValue }
    }

    typealias Store = any FeedStoring & EntrySearching

    func storeFor(_ kind: Kind) async throws -> Store { try await store(kind) }

    private func store(_ kind: Kind) async throws -> Store {
        let feeds = [
            FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph),
            FeedRegistration(name: "b", url: "http://127.0.0.1:1/b", kind: .graph),
        ]
        let store: Store
        switch kind {
        case .memory:
            store = MemoryStore(feeds)
        case .sqlite, .postgres:
            let opened: any StateStore =
                kind == .sqlite ? try FeedStore.open(at: temporaryStorePath()) : try await PostgresDatabases.store()
            try opened.removeFeed(named: FeedRegistration.defaultFeed.name)
            for feed in feeds { try opened.addFeed(feed, replace: false) }
            store = opened
        }
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try store.commitFetch(feed: "a", entries: Self.corpus.filter { $0.feed == "a" }, FetchCommit(fetchedAt: t0))
        _ = try store.commitFetch(feed: "b", entries: Self.corpus.filter { $0.feed == "b" }, FetchCommit(fetchedAt: t0))
        return store
    }

    static func entry(
        _ id: String, feed: String = "a", title: String?, text: String?, author: String? = nil, url: String? = nil,
        published: String
    ) -> Entry {
        Entry(
            feed: feed, id: id, title: title, text: text, author: author, url: url, published: published,
            fetchedAt: "2026-12-01T00:00:00Z", source: RawJSON(compactText: #"{"id":"\#(id)"}"#))
    }

    static let corpus = [
        entry(
            "cafe", title: "Un café à Paris", text: "<p>Le café est <b>chaud</b> &amp; bon</p>", author: "Zoë",
            published: "2026-11-01T10:00:00Z"),
        entry("aero", title: "Ærø island", text: "A ferry to Ærø and back", published: "2026-11-02T10:00:00Z"),
        entry("tokyo", title: nil, text: "東京で会いましょう。日本語のテキスト", published: "2026-11-03T10:00:00Z"),
        entry("emoji", title: "Tonight", text: "Party time 🎉 tonight", published: "2026-11-04T10:00:00Z"),
        entry(
            "swift", title: "Swift concurrency", text: "Actors and tasks in Swift 6",
            url: "https://swift.org/blog/concurrency?x=1", published: "2026-11-05T10:00:00Z"),
        entry(
            "rust", title: "Rust ownership", text: "Borrowing and lifetimes; not swift at all",
            published: "2026-11-06T10:00:00Z"),
        entry(
            "bnews", feed: "b", title: "Breaking news", text: "Swift release notes", author: "Apple Inc.",
            published: "2026-11-07T10:00:00Z"),
    ]

    /// Every query and the ids it finds, newest first.
    static let queries: [(String, [String])] = [
        ("cafe", ["cafe"]), ("CAFÉ", ["cafe"]), ("café chaud", ["cafe"]), ("bon", ["cafe"]), ("amp", []),
        ("b", []), ("zoe", ["cafe"]), ("aero", ["aero"]), ("ærø", ["aero"]), ("ÆRØ island", ["aero"]),
        ("東京", ["tokyo"]), ("日本語", ["tokyo"]), ("京で", ["tokyo"]), ("東日", []), ("🎉", ["emoji"]),
        ("swift", ["bnews", "rust", "swift"]), ("swift -rust", ["bnews", "swift"]), (#""swift 6""#, ["swift"]),
        ("concur*", ["swift"]), ("title:swift", ["swift"]), ("TITLE:Swift", ["swift"]), ("author:apple", ["bnews"]),
        ("feed:b swift", ["bnews"]), ("rust OR 🎉", ["rust", "emoji"]), ("-swift", ["emoji", "tokyo", "aero", "cafe"]),
        ("-swift OR rust", ["rust", "emoji", "tokyo", "aero", "cafe"]), ("swift.org", ["swift"]),
        ("blog/concurrency", ["swift"]), ("x", []), ("and", ["rust", "swift", "aero"]),
        ("AND", ["rust", "swift", "aero"]),
        ("NEAR(", []), (#"""#, []), ("*", []), (":", []), ("^", []), ("!!! ... ---", []), ("title:", []),
        (#""unclosed phrase"#, []), ("OR", []), ("swift OR", ["bnews", "rust", "swift"]),
        ("- swift", ["bnews", "rust", "swift"]),
        ("t*", ["swift", "emoji", "aero"]),
    ]

    @Test(arguments: Kind.allCases)
    func everyQueryFindsTheSameEntries(kind: Kind) async throws {
        let store = try await store(kind)
        for (query, expected) in Self.queries {
            var found: [String] = []
            try store.search(SearchRequest(query: SearchQuery.parse(query))) { hit in
                found.append(hit.entry.id)
                return true
            }
            #expect(found == expected, "\(query)")
        }
    }

    @Test(arguments: Kind.allCases)
    func feedsUnreadSinceLimitAndRankNarrowIt(kind: Kind) async throws {
        let store = try await store(kind)
        func ids(_ request: SearchRequest) throws -> [String] {
            var found: [String] = []
            try store.search(request) { hit in
                found.append(hit.entry.id)
                return true
            }
            return found
        }
        let swift = SearchQuery.parse("swift")
        #expect(try ids(SearchRequest(query: swift, feeds: ["a"])) == ["rust", "swift"])
        #expect(try ids(SearchRequest(query: swift, limit: 1)) == ["bnews"])
        // Few matches for the limit (PostgreSQL reads their dates and sorts them itself).
        #expect(try ids(SearchRequest(query: SearchQuery.parse("rust OR 🎉"), limit: 2)) == ["rust", "emoji"])
        #expect(try ids(SearchRequest(query: SearchQuery.parse("aero"), limit: 1)) == ["aero"])
        _ = try store.markDelivered(feed: "b", id: "bnews")
        #expect(try ids(SearchRequest(query: swift, unreadOnly: true)) == ["rust", "swift"])
        let since = try #require(Timestamp.parse("2026-11-06T00:00:00Z"))
        #expect(try ids(SearchRequest(query: swift, since: since)) == ["bnews", "rust"])
        // The title's words count most: the entry titled so first.
        #expect(try ids(SearchRequest(query: swift, ranked: true)).first == "swift")
        var ranks: [Double] = []
        try store.search(SearchRequest(query: swift, ranked: true)) { hit in
            ranks.append(hit.rank ?? -1)
            return true
        }
        #expect(ranks.count == 3 && ranks == ranks.sorted(by: >) && ranks.allSatisfy { $0 > 0 }, "\(ranks)")
    }

    @Test(arguments: Kind.allCases)
    func aPrunedEntryIsNeverAResult(kind: Kind) async throws {
        let store = try await store(kind)
        try store.setRetention(feed: "a", Retention(keep: .newest(1), remember: .forever))
        _ = try store.commitFetch(
            feed: "a",
            entries: [
                Self.entry("later", title: "Later", text: "swift again", published: "2026-11-08T10:00:00Z")
            ], FetchCommit(fetchedAt: Date(timeIntervalSince1970: 1_700_000_100)))
        var found: [String] = []
        try store.search(SearchRequest(query: SearchQuery.parse("swift"))) { hit in
            found.append(hit.entry.id)
            return true
        }
        #expect(found == ["later", "bnews"])
        if let state = store as? any StateStore {
            try state.removeFeed(named: "b")
            found = []
            try store.search(SearchRequest(query: SearchQuery.parse("swift OR breaking"))) { hit in
                found.append(hit.entry.id)
                return true
            }
            #expect(found == ["later"], "a removed feed's entries are not results")
        }
    }
}

/// SQLite's index itself, not only what the join with the entries lets through: a pruned or
/// removed entry's words are gone from the FTS5 table, which stays whole.
@Suite("Search: SQLite's index follows every removal")
struct SearchIndexTests {
    /// Entries stored after a search, counting up or backfilled below every other, are found by
    /// the next one: the index catches up with what it does not hold, in steps.
    @Test func theNextSearchFindsWhatWasStoredSinceAboveAndBelow() throws {
        let store = try FeedStore.open(at: temporaryStorePath())
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        func found(_ query: String) throws -> [String] {
            var ids: [String] = []
            try store.search(SearchRequest(query: SearchQuery.parse(query), limit: nil)) { hit in
                ids.append(hit.entry.id)
                return true
            }
            return ids
        }
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        let first = (1...7).map {
            SearchContractTests.entry("n\($0)", title: "word \($0)", text: nil, published: "2026-11-0\($0)T00:00:00Z")
        }
        _ = try store.commitFetch(
            feed: "a", entries: try store.number(first, backfill: false), FetchCommit(fetchedAt: t0))
        #expect(try found("word").count == 7)
        let older = (1...3).map {
            SearchContractTests.entry(
                "o\($0)", title: "word older \($0)", text: nil, published: "2026-10-0\($0)T00:00:00Z")
        }
        _ = try store.commitFetch(
            feed: "a", entries: try store.number(older, backfill: true), FetchCommit(fetchedAt: t0))
        let newer = [SearchContractTests.entry("n8", title: "word newer", text: nil, published: "2026-11-08T00:00:00Z")]
        _ = try store.commitFetch(
            feed: "a", entries: try store.number(newer, backfill: false), FetchCommit(fetchedAt: t0))
        #expect(try found("word").count == 11)
        #expect(try found("older") == ["o3", "o2", "o1"])
        #expect(try found("newer") == ["n8"])
    }

    /// A word most entries hold is found newest first by walking the dates (unread and read
    /// entries merged), and gives what reading and sorting every match gives.
    @Test func aCommonWordWalksTheDatesAndFindsTheSameNewest() throws {
        let store = try FeedStore.open(at: temporaryStorePath())
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        let entries = (1...400).map { n in
            SearchContractTests.entry(
                "e\(n)", title: n % 3 == 0 ? "rare common" : "common", text: nil,
                published: "2026-\(String(format: "%02d", 1 + n % 12))-\(String(format: "%02d", 1 + n % 28))T00:00:00Z")
        }
        _ = try store.commitFetch(
            feed: "a", entries: try store.number(entries, backfill: false),
            FetchCommit(fetchedAt: Date(timeIntervalSince1970: 1_700_000_000)))
        for n in stride(from: 1, through: 400, by: 4) { _ = try store.markDelivered(feed: "a", id: "e\(n)") }
        func found(_ query: String, limit: Int?, unread: Bool = false) throws -> [String] {
            var ids: [String] = []
            try store.search(SearchRequest(query: SearchQuery.parse(query), unreadOnly: unread, limit: limit)) { hit in
                ids.append(hit.entry.id)
                return true
            }
            return ids
        }
        let all = try found("common", limit: nil)
        #expect(all.count == 400)
        #expect(try found("common", limit: 5) == Array(all.prefix(5)), "the walk finds the newest")
        let unread = try found("common", limit: nil, unread: true)
        let newestUnread = try found("common", limit: 5, unread: true)
        #expect(unread.count == 300 && newestUnread == Array(unread.prefix(5)))
        let rare = try found("rare", limit: nil)
        #expect(try found("rare", limit: 3) == Array(rare.prefix(3)))
    }

    @Test func prunedAndRemovedEntriesLeaveTheIndex() throws {
        let store = try FeedStore.open(at: temporaryStorePath())
        for feed in ["a", "b"] {
            try store.addFeed(
                FeedRegistration(name: feed, url: "http://127.0.0.1:1/\(feed)", kind: .graph), replace: false)
        }
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try store.commitFetch(
            feed: "a", entries: SearchContractTests.corpus.filter { $0.feed == "a" }, FetchCommit(fetchedAt: t0))
        _ = try store.commitFetch(
            feed: "b", entries: SearchContractTests.corpus.filter { $0.feed == "b" }, FetchCommit(fetchedAt: t0))
        func indexed(_ match: String) throws -> [Int64] {
            try store.read { db in
                var rows: [Int64] = []
                try db.statement("SELECT rowid FROM entry_search WHERE entry_search MATCH ?").forEach([.text(match)]) {
                    rows.append($0.int64(0))
                    return true
                }
                return rows
            }
        }
        #expect(try indexed("ownership").isEmpty, "indexed by the first search, not by the commit")
        try store.catchUpSearchIndex(notice: { _ in })
        #expect(try indexed("ownership").count == 1 && indexed("breaking").count == 1)
        try store.setRetention(feed: "a", Retention(keep: .newest(1), remember: .forever))
        _ = try store.commitFetch(
            feed: "a",
            entries: [
                SearchContractTests.entry("later", title: "Later", text: "again", published: "2026-11-08T10:00:00Z")
            ],
            FetchCommit(fetchedAt: t0))
        try store.removeFeed(named: "b")
        #expect(try indexed("ownership").isEmpty, "the pruned entry's words are gone")
        #expect(try indexed("breaking").isEmpty, "the removed feed's entries' words are gone")
        #expect(try indexed("later").isEmpty, "stored after the catch-up")
        try store.catchUpSearchIndex(notice: { _ in })
        #expect(try indexed("later").count == 1)
        try store.read { db in
            #expect(try db.statement("SELECT COUNT(*) FROM entry_search").first { $0.int64(0) } == 1)
            try db.execute("INSERT INTO entry_search (entry_search, rank) VALUES ('integrity-check', 1)")
        }
    }
}

/// Any text is a query: random ones made of the corpus' words, the signs of the query syntax
/// and FTS5's and tsquery's operators are never an error of an engine, and the three stores
/// agree on every one.
@Suite("Search: random queries", .timeLimit(.minutes(2)))
struct SearchRandomQueryTests {
    @Test func everyEngineAnswersEveryQueryAlike() async throws {
        let contract = SearchContractTests()
        var stores: [(String, SearchContractTests.Store)] = []
        for kind in SearchContractTests.Kind.allCases {
            stores.append((kind.rawValue, try await contract.storeFor(kind)))
        }
        let pieces = [
            "swift", "Swift", "café", "ærø", "東京", "京", "🎉", "and", "AND", "OR", "NOT", "NEAR(", "NEAR/2", "\"", "-",
            "*", ":", "^", "(", ")", "{", "}", "'", "\\", "&", "|", "!", "<->", "title:", "author:", "feed:", "t*",
            "-swift", "\"swift 6\"", " ", " ", " ", "x", "6", "+", "''", "\\0", "\u{0}", "%", "_",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<150 {
            let query = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                pieces.randomElement(using: &generator) ?? ""
            }.joined(separator: Bool.random(using: &generator) ? " " : "")
            var answers: [String: [String]] = [:]
            for (name, store) in stores {
                var found: [String] = []
                try store.search(SearchRequest(query: SearchQuery.parse(query))) { hit in
                    found.append(hit.entry.id)
                    return true
                }
                answers[name] = found
            }
            #expect(Set(answers.values).count == 1, "\(query): \(answers)")
        }
    }
}
