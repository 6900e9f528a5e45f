import FeedModel
import FeedStoreContract

/// The store's search index: an FTS5 table of each entry's folded words (`SearchDocument`), its
/// rowid the entry's number.
///
/// Contentless (`content=''`): the text is not stored twice, only its index. FTS5 is given the
/// words feedcli folded itself, so that SQLite and PostgreSQL match alike; its `ascii`
/// tokenizer splits them at the spaces only (`unicode61` would drop emoji, and split CJK
/// otherwise than the query does). A contentless row is removed by giving FTS5 the words it was
/// indexed with: `SearchDocument` of the stored entry, the same function of the same columns.
/// Invariant: the folding of an indexed row never changes under it; a change to `SearchText`
/// or `SearchDocument` is a migration that builds the index anew.
///
/// Entries are indexed by `catchUp`, which `search` runs before it answers, not by the commit
/// that stores them: folding and indexing each entry in the commit slowed `follow` past what
/// the contract allows the index to cost it (bench-streams.sh's follow row; docs/DESIGN.md). Which entries the index holds is one range of numbers, `search_mark`'s
/// `lower..<upper`: numbers are given counting up (new entries) and down (backfills) and never
/// again, so what is not indexed yet is above `upper` or below `lower`. A pruned or removed
/// entry inside the range leaves the index in the transaction that removes it.
enum SearchIndex {
    /// The table (schema v18).
    static let create = """
        CREATE VIRTUAL TABLE entry_search USING fts5(
            title, body, author, link, feed, content = '', tokenize = 'ascii')
        """

    /// The entries the index holds: numbers in `lower..<upper`; `built`: whether a store made
    /// before search has had its entries indexed once (said when it is done).
    struct Marks {
        var lower: Int64
        var upper: Int64
        var built: Bool

        func holds(_ seq: Int64) -> Bool { seq >= lower && seq < upper }
    }

    static func marks(_ db: SQLiteConnection) throws -> Marks {
        try db.statement("SELECT lower, upper, built FROM search_mark").first { row in
            Marks(lower: row.int64(0), upper: row.int64(1), built: row.bool(2))
        } ?? Marks(lower: 1, upper: 1, built: true)
    }

    /// The columns an entry's index row is made of, in `SELECT` (or `RETURNING`) order.
    static let indexedColumns = "seq, feed, title, text, author, url"

    /// An entry's columns as read with `indexedColumns`, folded only when it is in the index.
    struct Row {
        var seq: Int64
        var feed: String
        var title, text, author, url: String?

        init(_ row: SQLiteRow) {
            seq = row.int64(0)
            feed = row.text(1) ?? ""
            title = row.text(2)
            text = row.text(3)
            author = row.text(4)
            url = row.text(5)
        }

        var document: SearchDocument { SearchDocument(title: title, text: text, author: author, url: url, feed: feed) }
    }

    /// Indexes the entry numbered `seq`.
    static func add(_ db: SQLiteConnection, seq: Int64, _ document: SearchDocument) throws {
        try db.statement(
            "INSERT INTO entry_search (rowid, title, body, author, link, feed) VALUES (?, ?, ?, ?, ?, ?)"
        ).run([.integer(seq)] + values(document))
    }

    /// Takes the entries `rows` read out of the index, those it holds.
    static func remove(_ db: SQLiteConnection, _ rows: [Row]) throws {
        guard !rows.isEmpty else { return }
        let marks = try marks(db)
        let statement = try db.statement(
            """
            INSERT INTO entry_search (entry_search, rowid, title, body, author, link, feed)
            VALUES ('delete', ?, ?, ?, ?, ?, ?)
            """)
        for row in rows where marks.holds(row.seq) { try statement.run([.integer(row.seq)] + values(row.document)) }
    }

    /// Takes every entry of `feed` out of the index (before the feed and its entries go).
    static func removeFeed(_ db: SQLiteConnection, _ feed: String) throws {
        var rows: [Row] = []
        try db.statement("SELECT \(indexedColumns) FROM entry WHERE feed = ?").forEach([.text(feed)]) { row in
            rows.append(Row(row))
            return true
        }
        try remove(db, rows)
    }

    /// Empties the index, which then holds no entry (`store copy`'s target: its entries are
    /// indexed by the first `search`).
    static func forgetAll(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            INSERT INTO entry_search (entry_search) VALUES ('delete-all');
            UPDATE search_mark SET lower = 1, upper = 1;
            """)
    }

    /// Indexes up to `step` of the entries the index does not hold yet, those stored since
    /// (numbers from `upper` up) and then backfilled ones (from `lower` down), and moves the
    /// marks past them. How many it indexed; fewer than `step`: the index holds every entry.
    static func catchUp(_ db: SQLiteConnection, step: Int) throws -> Int {
        var marks = try marks(db)
        var rows: [Row] = []
        try db.statement("SELECT \(indexedColumns) FROM entry WHERE seq >= ? ORDER BY seq LIMIT ?").forEach([
            .integer(marks.upper), .integer(Int64(step)),
        ]) { row in
            rows.append(Row(row))
            return true
        }
        if let last = rows.last { marks.upper = last.seq + 1 }
        let above = rows.count
        if above < step {
            try db.statement("SELECT \(indexedColumns) FROM entry WHERE seq < ? ORDER BY seq DESC LIMIT ?").forEach([
                .integer(marks.lower), .integer(Int64(step - above)),
            ]) { row in
                rows.append(Row(row))
                return true
            }
            if rows.count > above, let last = rows.last { marks.lower = last.seq }
        }
        for row in rows { try add(db, seq: row.seq, row.document) }
        if rows.count < step { marks.built = true }
        try db.statement("UPDATE search_mark SET lower = ?, upper = ?, built = ?").run([
            .integer(marks.lower), .integer(marks.upper), SQLiteValue(marks.built),
        ])
        return rows.count
    }

    /// How many entries the index does not hold yet.
    static func behind(_ db: SQLiteConnection) throws -> Int64 {
        let marks = try marks(db)
        return try db.statement(
            "SELECT (SELECT COUNT(*) FROM entry WHERE seq >= ?) + (SELECT COUNT(*) FROM entry WHERE seq < ?)"
        )
        .first([.integer(marks.upper), .integer(marks.lower)]) { $0.int64(0) } ?? 0
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
