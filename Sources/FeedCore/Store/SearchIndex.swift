import FeedModel
import FeedStoreContract

/// The store's search index: an FTS5 table of each entry's folded words (`SearchDocument`), its
/// rowid the entry's number, kept in the transactions that store and prune entries.
///
/// Contentless (`content=''`): the text is not stored twice, only its index. FTS5 is given the
/// words feedcli folded itself, so that SQLite and PostgreSQL match alike; its `ascii`
/// tokenizer splits them at the spaces only (`unicode61` would drop emoji, and split CJK
/// otherwise than the query does). A contentless row is removed by giving FTS5 the words it was
/// indexed with: `SearchDocument` of the stored entry, the same function of the same columns.
/// Invariant: the folding of an indexed row never changes under it; a change to `SearchText`
/// or `SearchDocument` is a migration that builds the index anew.
enum SearchIndex {
    /// The table (schema v18).
    static let create = """
        CREATE VIRTUAL TABLE entry_search USING fts5(
            title, body, author, link, feed, content = '', tokenize = 'ascii')
        """

    /// The columns an entry's index row is made of, in `SELECT` order, for `remove`.
    static let indexedColumns = "seq, feed, title, text, author, url"

    /// Indexes the entry numbered `seq`.
    static func add(_ db: SQLiteConnection, seq: Int64, _ document: SearchDocument) throws {
        try db.statement(
            "INSERT INTO entry_search (rowid, title, body, author, link, feed) VALUES (?, ?, ?, ?, ?, ?)"
        ).run([.integer(seq)] + values(document))
    }

    /// Takes the entry numbered `seq`, indexed as `document`, out of the index.
    static func remove(_ db: SQLiteConnection, seq: Int64, _ document: SearchDocument) throws {
        try db.statement(
            """
            INSERT INTO entry_search (entry_search, rowid, title, body, author, link, feed)
            VALUES ('delete', ?, ?, ?, ?, ?, ?)
            """
        ).run([.integer(seq)] + values(document))
    }

    /// The document of a row read with `indexedColumns`, and its number.
    static func document(_ row: SQLiteRow) -> (seq: Int64, document: SearchDocument) {
        (
            row.int64(0),
            SearchDocument(
                title: row.text(2), text: row.text(3), author: row.text(4), url: row.text(5), feed: row.text(1) ?? "")
        )
    }

    /// Takes every entry of `feed` out of the index (before the feed and its entries go).
    static func removeFeed(_ db: SQLiteConnection, _ feed: String) throws {
        var rows: [(Int64, SearchDocument)] = []
        try db.statement("SELECT \(indexedColumns) FROM entry WHERE feed = ?").forEach([.text(feed)]) { row in
            rows.append(document(row))
            return true
        }
        for (seq, document) in rows { try remove(db, seq: seq, document) }
    }

    /// Indexes every stored entry (schema v18, over a store made before search): in number
    /// order, a row at a time.
    static func build(_ db: SQLiteConnection) throws {
        var last = Int64.min
        while true {
            var batch: [(Int64, SearchDocument)] = []
            try db.statement("SELECT \(indexedColumns) FROM entry WHERE seq > ? ORDER BY seq LIMIT 1000").forEach([
                .integer(last)
            ]) { row in
                batch.append(document(row))
                return true
            }
            guard let end = batch.last?.0 else { return }
            for (seq, document) in batch { try add(db, seq: seq, document) }
            last = end
        }
    }

    /// Merges the index's segments into one (`store compact`).
    static func optimize(_ db: SQLiteConnection) throws {
        try db.execute("INSERT INTO entry_search (entry_search) VALUES ('optimize')")
    }

    private static func values(_ document: SearchDocument) -> [SQLiteValue] {
        [document.title, document.body, document.author, document.link, document.feed].map {
            .text($0.joined(separator: " "))
        }
    }
}
