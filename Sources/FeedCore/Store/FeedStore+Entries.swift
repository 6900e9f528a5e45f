import Foundation
import GRDB

/// What a successful fetch changes, committed together with its entries in one transaction.
public struct FetchCommit: Sendable, Equatable {
    /// What to do with the backfill cursor (`resume_url`).
    public enum Cursor: Sendable, Equatable {
        case keep
        case set(String)
        case clear
    }

    public var fetchedAt: Date
    /// New `next_index` of an `indexed` feed; nil leaves it.
    public var nextIndex: Int?
    /// New validators of the first page; nil leaves them.
    public var validators: Validators?
    public var resume: Cursor
    /// The entries are older than every stored entry of the feed (backfill): they are placed
    /// before them, so `next` still delivers oldest first.
    public var isBackfill: Bool

    public init(
        fetchedAt: Date, nextIndex: Int? = nil, validators: Validators? = nil, resume: Cursor = .keep,
        isBackfill: Bool = false
    ) {
        self.fetchedAt = fetchedAt
        self.nextIndex = nextIndex
        self.validators = validators
        self.resume = resume
        self.isBackfill = isBackfill
    }
}

/// Entries: delivery, storage, listing.
///
/// Entry text (`id`, `title`, `text`, `author`, `url`) is stored as UTF-8 blobs so that every
/// character survives, NUL included (see schema v3).
extension FeedStore {
    /// The oldest unread entry of `feed`, without marking it: `markDelivered` does that once it
    /// has been printed. Uses the (feed, read, seq) index, so its cost does not grow with history.
    public func oldestUnread(feed: String) throws(FeedFailure) -> Entry? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.entryColumns) FROM entry WHERE feed = ? AND read = 0 ORDER BY seq LIMIT 1",
                             arguments: [feed]).map(Self.entry)
        }
    }

    /// Marks a printed entry read; returns the feed's record after the change.
    public func markDelivered(feed: String, id: String) throws(FeedFailure) -> FeedRecord {
        try write { db in
            try db.execute(sql: "UPDATE entry SET read = 1 WHERE feed = ? AND id = ?", arguments: [feed, Self.blob(id)])
            return try Self.record(db, name: feed)
        }
    }

    /// Stores `entries` (in the given order, oldest first) and the fetch's bookkeeping in one
    /// transaction, clearing the feed's last error and retry time. Entries whose id is already
    /// stored are skipped; returns the ones that were new and the feed's record after the change.
    @discardableResult
    public func commitFetch(feed: String, entries: [Entry], _ commit: FetchCommit) throws(FeedFailure) -> CommitOutcome {
        try write { db in
            var inserted: [Entry] = []
            // Backfilled entries get sequence numbers below every stored one (seq is unique across
            // feeds), newest of them nearest; sequence numbers may go negative.
            var backfillSeq: Int64? = nil
            if commit.isBackfill, !entries.isEmpty {
                let oldest = try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM entry")
                backfillSeq = (oldest ?? 1) - Int64(entries.count)
            }
            let statement = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO entry (seq, feed, id, title, text, author, url, published, fetched_at, read, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (offset, entry) in entries.enumerated() {
                try statement.execute(arguments: [
                    backfillSeq.map { $0 + Int64(offset) }, feed, Self.blob(entry.id), Self.blob(entry.title),
                    Self.blob(entry.text), Self.blob(entry.author), Self.blob(entry.url), entry.published,
                    entry.fetchedAt, entry.read, entry.source.text,
                ])
                if db.changesCount > 0 { inserted.append(entry) }
            }
            let resumeChanges: Bool, resumeURL: String?
            switch commit.resume {
            case .keep: (resumeChanges, resumeURL) = (false, nil)
            case .set(let url): (resumeChanges, resumeURL) = (true, url)
            case .clear: (resumeChanges, resumeURL) = (true, nil)
            }
            try db.execute(sql: """
                UPDATE feed SET last_fetch_at = ?, last_error = NULL, last_error_code = NULL, retry_not_before = NULL,
                    next_index = COALESCE(?, next_index),
                    etag = CASE WHEN ? THEN ? ELSE etag END,
                    last_modified = CASE WHEN ? THEN ? ELSE last_modified END,
                    resume_url = CASE WHEN ? THEN ? ELSE resume_url END
                WHERE name = ?
                """, arguments: [
                    Timestamp.format(commit.fetchedAt), commit.nextIndex,
                    commit.validators != nil, commit.validators?.etag,
                    commit.validators != nil, commit.validators?.lastModified,
                    resumeChanges, resumeURL, feed,
                ])
            return CommitOutcome(entries: inserted, record: try Self.record(db, name: feed))
        }
    }

    /// Which of `ids` are stored for `feed`. One indexed lookup per id: no limit on how many
    /// (a page may hold hundreds of thousands) and no statement that grows with them.
    public func storedIDs(feed: String, among ids: [String]) throws(FeedFailure) -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM entry WHERE feed = ? AND id = ?")
            var stored = Set<String>()
            for id in ids where try Bool.fetchOne(statement, arguments: [feed, Self.blob(id)]) != nil {
                stored.insert(id)
            }
            return stored
        }
    }

    /// The entries with `id`, of `feed` when given (several feeds may share an id).
    public func entries(id: String, feed: String?) throws(FeedFailure) -> [Entry] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.entryColumns) FROM entry WHERE id = ? AND (? IS NULL OR feed = ?) ORDER BY feed",
                arguments: [Self.blob(id), feed, feed]
            ).map(Self.entry)
        }
    }

    /// Streams stored entries oldest first, one row at a time (memory stays flat however many
    /// there are), until `body` returns false. `limit` keeps the newest N.
    public func forEachEntry(
        feed: String?, unreadOnly: Bool, limit: Int?, _ body: (Entry) throws -> Bool
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
            sql = "SELECT * FROM (SELECT \(Self.entryColumns), seq FROM entry \(filter) ORDER BY seq DESC LIMIT ?) ORDER BY seq"
        } else {
            sql = "SELECT \(Self.entryColumns) FROM entry \(filter) ORDER BY seq"
        }
        try read { db in
            let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try rows.next(), try body(Self.entry(row)) {}
        }
    }

    /// The columns an entry is read from, in the order `entry(_:)` reads them by position
    /// (positions, not names: a name lookup per column per row costs more than the rest when
    /// listing a million entries).
    static let entryColumns = "feed, id, title, text, author, url, published, fetched_at, read, source"

    static func entry(_ row: Row) -> Entry {
        Entry(feed: text(row, 0) ?? "", id: text(row, 1) ?? "", title: text(row, 2), text: text(row, 3),
              author: text(row, 4), url: text(row, 5), published: text(row, 6), fetchedAt: text(row, 7) ?? "",
              read: row[8], source: RawJSON(compactText: text(row, 9) ?? "null"))
    }

    /// Text read byte for byte from SQLite's own buffer, whether stored as a blob (schema v3) or
    /// as text (older rows, the columns that were always text); nil for NULL.
    static func text(_ row: Row, _ index: Int) -> String? {
        (try? row.withUnsafeData(atIndex: index) { data in data.map { String(decoding: $0, as: UTF8.self) } }) ?? nil
    }

    /// Text bound as a blob, so SQLite keeps every byte (see schema v3).
    static func blob(_ text: String?) -> Data? {
        text.map { Data($0.utf8) }
    }

    /// Text read back byte for byte, whether stored as a blob or (by an older feedcli) as text.
    static func text(_ row: Row, _ column: String) -> String? {
        let value: DatabaseValue = row[column]
        switch value.storage {
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        case .string(let string): return string
        default: return nil
        }
    }
}

/// What `commitFetch` did: the entries that were new and the feed's record afterwards.
public struct CommitOutcome: Sendable, Equatable {
    public var entries: [Entry]
    public var record: FeedRecord

    public init(entries: [Entry], record: FeedRecord) {
        self.entries = entries
        self.record = record
    }
}
