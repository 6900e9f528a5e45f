import CSQLite
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedStore

/// Schema v16: an entry is four b-trees, and the orders the two dropped indexes gave are merged
/// from the unread and read ranges of the two that begin with `read` (`ReadSplitOrder`). Every
/// order a command reads is still read from an index, never sorted, and is the order asked; an
/// older store is upgraded without losing an entry.
@Suite("orders merged from unread and read entries, on SQLite", .timeLimit(.minutes(2)))
struct ReadSplitOrderTests {
    /// `EXPLAIN QUERY PLAN`'s lines of `sql` on the store at `path`.
    private func plan(_ path: String, _ sql: String, _ arguments: [SQLiteValue]) throws -> [String] {
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        var lines: [String] = []
        try connection.statement("EXPLAIN QUERY PLAN " + sql).forEach(arguments) { row in
            lines.append(row.string(3))
            return true
        }
        return lines
    }

    /// Every listing a command asks for: one feed as stored, and by publication for none, one or
    /// several feeds, unread or not; all feeds as stored (`store copy`, every entry); limited or
    /// not, either way.
    static let listings: [(feeds: [String], order: EntryOrder, unread: [Bool])] = [
        (["a"], .stored, [false, true]), ([], .published, [false, true]), (["a"], .published, [false, true]),
        (["a", "b"], .published, [false, true]), ([], .stored, [false]),
    ]

    @Test func everyListingIsReadFromAnIndexWithoutASort() throws {
        let path = temporaryStorePath()
        _ = try FeedStore.open(at: path)
        for listing in Self.listings {
            for unread in listing.unread {
                for limit in [nil, 10] {
                    for newestFirst in [false, true] {
                        let (sql, arguments) = FeedStore.listing(
                            feeds: listing.feeds, unreadOnly: unread, limit: limit, newestFirst: newestFirst,
                            order: listing.order)
                        let lines = try plan(path, sql, arguments)
                        let described =
                            "\(listing) unread: \(unread) limit: \(String(describing: limit)) newest first: \(newestFirst): \(lines)"
                        // Keeping the newest N, then showing them oldest first, sorts those N.
                        let sortsTheKept = limit != nil && !newestFirst
                        #expect(
                            lines.filter { $0.contains("TEMP B-TREE") }.count <= (sortsTheKept ? 1 : 0), "\(described)")
                        // All feeds in storage order are the table's own order; nothing else scans it.
                        let scans = lines.filter { $0.hasPrefix("SCAN entry") }
                        #expect(scans.isEmpty || (listing.feeds.isEmpty && listing.order == .stored), "\(described)")
                    }
                }
            }
        }
    }

    @Test func aPruneStepAndTheNewestIDReadTheirFeedFromAnIndex() throws {
        let path = temporaryStorePath()
        _ = try FeedStore.open(at: path)
        let feed = SQLiteValue.text("a")
        for (sql, arguments) in [
            (ReadSplitOrder.feedStored("fetched_at, seq", limit: "1"), [feed]),
            (ReadSplitOrder.feedStored("id, seq", newestFirst: true, limit: "1"), [feed]),
            (
                "DELETE FROM entry WHERE seq IN (\(ReadSplitOrder.feedStored("seq", limit: "?2")))"
                    + " AND fetched_at < ?3 AND seq < \(ReadSplitOrder.feedNewestNumber) RETURNING id, read",
                [feed, .integer(1024), .text("2026-11-21T19:00:00Z")]
            ),
        ] {
            let lines = try plan(path, sql, arguments)
            #expect(lines.contains("MERGE (UNION ALL)"), "\(sql): \(lines)")
            #expect(!lines.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN entry") }, "\(sql): \(lines)")
        }
    }

    /// Two feeds whose entries are read and unread in turn and published out of storage order:
    /// every listing gives the entries a sort of them gives.
    @Test func theMergedOrdersAreTheOrdersAsked() throws {
        let store = try FeedStore.open(at: temporaryStorePath())
        for feed in ["a", "b"] {
            try store.addFeed(
                FeedRegistration(name: feed, url: "http://127.0.0.1:1/\(feed)", kind: .graph), replace: false)
        }
        let time = Date(timeIntervalSince1970: 1_763_726_400)
        var stored: [Entry] = []
        for batch in 0..<6 {
            let feed = batch % 2 == 0 ? "a" : "b"
            let entries = (0..<5).map { index in
                var entry = Entry.sample("\(batch)-\(index)", feed: feed, read: (batch + index) % 3 == 0)
                // Published backwards in time, some not at all (then fetched_at counts).
                entry.published = index == 2 ? nil : Timestamp.format(time - Double(batch * 10 + index) * 60)
                entry.fetchedAt = Timestamp.format(time + Double(batch))
                return entry
            }
            stored += try store.commitFetch(feed: feed, entries: entries, FetchCommit(fetchedAt: time)).entries
        }
        #expect(stored.count == 30 && Set(stored.map(\.seq)).count == 30)
        func key(_ entry: Entry) -> (String, Int64) { (entry.published ?? entry.fetchedAt, entry.seq) }
        for listing in Self.listings {
            for unread in listing.unread {
                for limit in [nil, 4] {
                    for newestFirst in [false, true] {
                        var expected = stored.filter {
                            (listing.feeds.isEmpty || listing.feeds.contains($0.feed)) && (!unread || !$0.read)
                        }
                        expected.sort {
                            listing.order == .stored
                                ? key($0).1 < key($1).1 : key($0) < key($1)
                        }
                        if let limit { expected = Array(expected.suffix(limit)) }
                        if newestFirst { expected.reverse() }
                        var listed: [String] = []
                        try store.forEachEntry(
                            feeds: listing.feeds, unreadOnly: unread, limit: limit, newestFirst: newestFirst,
                            order: listing.order
                        ) {
                            listed.append("\($0.feed)/\($0.id)")
                            return true
                        }
                        #expect(
                            listed == expected.map { "\($0.feed)/\($0.id)" },
                            "\(listing) unread: \(unread) limit: \(String(describing: limit)) newest first: \(newestFirst)"
                        )
                    }
                }
            }
        }
        #expect(try store.newestEntryID(feed: "a") == "4-4")
    }

    /// A store as v15 left it (six b-trees an entry, AUTOINCREMENT, a `read` of 5 written by a
    /// script) is upgraded by the next open: the indexes and the keyword are gone, the file is
    /// whole, every entry is there, and storing goes on above the numbers used.
    @Test func aStoreOfVersion15IsUpgradedWholeAndGoesOnNumbering() throws {
        let path = temporaryStorePath()
        let store = try FeedStore.open(at: path)
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        let time = Date(timeIntervalSince1970: 1_763_726_400)
        try store.commitFetch(
            feed: "a", entries: (1...20).map { Entry.sample("\($0)", feed: "a") }, FetchCommit(fetchedAt: time))
        do {
            let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE)
            try connection.execute(
                """
                BEGIN IMMEDIATE;
                CREATE INDEX entry_by_feed_seq ON entry (feed, seq);
                CREATE INDEX entry_by_publication ON entry (COALESCE(published, fetched_at), seq);
                UPDATE entry SET read = 5 WHERE id = CAST('3' AS BLOB);
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v16:%';
                COMMIT;
                """)
            let version = try connection.statement("PRAGMA schema_version").first { $0.int64(0) } ?? 0
            try connection.execute("PRAGMA writable_schema = ON")
            try connection.execute(
                """
                UPDATE sqlite_master SET sql = replace(sql, 'seq INTEGER PRIMARY KEY', 'seq INTEGER PRIMARY KEY AUTOINCREMENT')
                WHERE name = 'entry'
                """)
            try connection.execute("PRAGMA schema_version = \(version + 1)")
            try connection.execute("PRAGMA writable_schema = OFF")
            try connection.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('entry', 20)")
        }
        let before = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        #expect(
            try before.statement("SELECT sql FROM sqlite_master WHERE name = 'entry'").first { $0.string(0) }?
                .contains("AUTOINCREMENT") == true, "the store is as v15 left it")

        let upgraded = try FeedStore.open(at: path)
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        #expect(try connection.statement("PRAGMA integrity_check").first { $0.string(0) } == "ok")
        let definition = try connection.statement("SELECT sql FROM sqlite_master WHERE name = 'entry'").first {
            $0.string(0)
        }
        #expect(definition?.contains("AUTOINCREMENT") == false && definition?.contains("PRIMARY KEY") == true)
        #expect(
            try connection.statement("SELECT 1 FROM sqlite_sequence WHERE name = 'entry'").first { _ in true } == nil)
        var indexes: [String] = []
        try connection.statement(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entry' AND sql IS NOT NULL ORDER BY name"
        ).forEach {
            indexes.append($0.string(0))
            return true
        }
        #expect(indexes == ["entry_by_feed_read", "entry_by_read_publication"])
        #expect(
            try connection.statement("SELECT read FROM entry WHERE id = CAST('3' AS BLOB)").first { $0.int64(0) } == 1)

        let more = try upgraded.commitFetch(
            feed: "a", entries: (21...22).map { Entry.sample("\($0)", feed: "a") }, FetchCommit(fetchedAt: time))
        #expect(more.entries.map(\.seq).allSatisfy { $0 > 20 }, "numbers go on above the ones used")
        #expect(try upgraded.listAll().map(\.id) == (1...22).map(String.init))
        #expect(try upgraded.newestEntryID(feed: "a") == "22")
    }
}

extension FeedStore {
    /// Every entry of every feed, as stored.
    fileprivate func listAll() throws -> [Entry] {
        var all: [Entry] = []
        try forEachEntry(feeds: [], unreadOnly: false, limit: nil, newestFirst: false, order: .stored) {
            all.append($0)
            return true
        }
        return all
    }
}
