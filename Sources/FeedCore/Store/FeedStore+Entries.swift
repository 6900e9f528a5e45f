import GRDB

/// What a successful fetch changes, committed together with its entries in one transaction.
public struct FetchCommit: Sendable, Equatable {
    public var fetchedAt: String
    /// New `next_index` of an `indexed` feed; nil leaves it.
    public var nextIndex: Int?
    /// New validators of the first page; nil leaves them.
    public var validators: Validators?
    /// The backfill cursor: `.some(url)` sets it, `.some(nil)` clears it, nil leaves it.
    public var resumeURL: String??
    /// The entries are older than every stored entry of the feed (backfill): they are placed
    /// before them, so `next` still delivers oldest first.
    public var isBackfill: Bool

    public init(
        fetchedAt: String, nextIndex: Int? = nil, validators: Validators? = nil,
        resumeURL: String?? = nil, isBackfill: Bool = false
    ) {
        self.fetchedAt = fetchedAt
        self.nextIndex = nextIndex
        self.validators = validators
        self.resumeURL = resumeURL
        self.isBackfill = isBackfill
    }
}

/// Entries: delivery, storage, listing.
extension FeedStore {
    /// Marks the oldest unread entry of `feed` read and returns it, in one transaction; nil when
    /// none is unread. Uses the (feed, read, seq) index, so its cost does not grow with history.
    public func deliverNext(feed: String) throws(FeedFailure) -> Entry? {
        try write { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT * FROM entry WHERE feed = ? AND read = 0 ORDER BY seq LIMIT 1", arguments: [feed])
            else { return nil }
            try db.execute(sql: "UPDATE entry SET read = 1 WHERE seq = ?", arguments: [row["seq"] as Int64])
            var entry = Self.entry(row)
            entry.read = true
            return entry
        }
    }

    /// Stores `entries` (in the given order, oldest first) and the fetch's bookkeeping in one
    /// transaction, clearing the feed's last error and retry time. Entries whose id is already
    /// stored are skipped; returns the ones that were new.
    @discardableResult
    public func commitFetch(feed: String, entries: [Entry], _ commit: FetchCommit) throws(FeedFailure) -> [Entry] {
        try write { db in
            var inserted: [Entry] = []
            // Backfilled entries get sequence numbers below every stored one (seq is unique across
            // feeds), newest of them nearest; sequence numbers may go negative.
            var backfillSeq: Int64? = nil
            if commit.isBackfill {
                let oldest = try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM entry")
                backfillSeq = (oldest ?? 1) - Int64(entries.count)
            }
            let statement = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO entry (seq, feed, id, title, text, author, url, published, fetched_at, read, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (offset, entry) in entries.enumerated() {
                try statement.execute(arguments: [
                    backfillSeq.map { $0 + Int64(offset) }, feed, entry.id, entry.title, entry.text, entry.author,
                    entry.url, entry.published, entry.fetchedAt, entry.read, entry.source.text,
                ])
                if db.changesCount > 0 { inserted.append(entry) }
            }
            try db.execute(sql: """
                UPDATE feed SET last_fetch_at = ?, last_error = NULL, last_error_code = NULL, retry_not_before = NULL,
                    next_index = COALESCE(?, next_index),
                    etag = CASE WHEN ? THEN ? ELSE etag END,
                    last_modified = CASE WHEN ? THEN ? ELSE last_modified END,
                    resume_url = CASE WHEN ? THEN ? ELSE resume_url END
                WHERE name = ?
                """, arguments: [
                    commit.fetchedAt, commit.nextIndex,
                    commit.validators != nil, commit.validators?.etag,
                    commit.validators != nil, commit.validators?.lastModified,
                    commit.resumeURL != nil, commit.resumeURL ?? nil, feed,
                ])
            return inserted
        }
    }

    /// Which of `ids` are stored for `feed`.
    public func storedIDs(feed: String, among ids: [String]) throws(FeedFailure) -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            let arguments = StatementArguments([feed] + ids)
            return Set(try String.fetchAll(db, sql: "SELECT id FROM entry WHERE feed = ? AND id IN (\(marks))",
                                           arguments: arguments))
        }
    }

    /// The entries with `id`, of `feed` when given (several feeds may share an id).
    public func entries(id: String, feed: String?) throws(FeedFailure) -> [Entry] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM entry WHERE id = ? AND (? IS NULL OR feed = ?) ORDER BY feed",
                arguments: [id, feed, feed]
            ).map(Self.entry)
        }
    }

    /// Streams stored entries oldest first, one row at a time (memory stays flat however many
    /// there are), until `body` returns false. `limit` keeps the newest N.
    public func forEachEntry(
        feed: String?, unreadOnly: Bool, limit: Int?, _ body: (Entry) -> Bool
    ) throws(FeedFailure) {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let feed {
            conditions.append("feed = ?")
            arguments.append(feed)
        }
        if unreadOnly { conditions.append("read = 0") }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql: String
        if let limit {
            arguments.append(limit)
            sql = "SELECT * FROM (SELECT * FROM entry \(filter) ORDER BY seq DESC LIMIT ?) ORDER BY seq"
        } else {
            sql = "SELECT * FROM entry \(filter) ORDER BY seq"
        }
        try read { db in
            let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try rows.next(), body(Self.entry(row)) {}
        }
    }

    static func entry(_ row: Row) -> Entry {
        Entry(feed: row["feed"], id: row["id"], title: row["title"], text: row["text"], author: row["author"],
              url: row["url"], published: row["published"], fetchedAt: row["fetched_at"], read: row["read"],
              source: RawJSON(compactText: row["source"]))
    }
}
