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
            let statement = try db.cachedStatement(
                sql: "SELECT \(Self.entryColumns) FROM entry WHERE feed = ? AND read = 0 ORDER BY seq LIMIT 1")
            let rows = try Row.fetchCursor(statement, arguments: [feed])  // read in place, not copied
            return try withExtendedLifetime(rows) { try rows.next().map(Self.entry) }
        }
    }

    /// Marks a printed entry read; returns the feed's record after the change.
    public func markDelivered(feed: String, id: String) throws(FeedFailure) -> FeedRecord {
        try write { db in
            try db.cachedStatement(sql: "UPDATE entry SET read = 1 WHERE feed = ? AND id = ?")
                .execute(arguments: [feed, Self.blob(id)])
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
            // Entries numbered by `number(_:backfill:)` keep their numbers; others get theirs now.
            let unnumbered = entries.filter { $0.seq == 0 }.count
            var numbers = try Self.reserve(db, count: unnumbered, backfill: commit.isBackfill).makeIterator()
            let statement = try db.cachedStatement(sql: """
                INSERT INTO entry (seq, feed, id, title, text, author, url, published, fetched_at, read, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (feed, id) DO NOTHING
                """)
            for var entry in entries {
                if entry.seq == 0, let number = numbers.next() { entry.seq = number }
                try statement.execute(arguments: [
                    entry.seq, feed, Self.blob(entry.id), Self.blob(entry.title),
                    Self.blob(entry.text), Self.blob(entry.author), Self.blob(entry.url), entry.published,
                    entry.fetchedAt, entry.read, entry.source.text,
                ])
                if db.changesCount > 0 { inserted.append(entry) }
            }
            return CommitOutcome(entries: inserted, record: try Self.commitBookkeeping(db, feed: feed, commit))
        }
    }

    /// The feed's side of a successful fetch: its time, validators, index and backfill cursor
    /// as `commit` says, the last error and retry time cleared. Returns the record after it.
    private static func commitBookkeeping(_ db: Database, feed: String, _ commit: FetchCommit) throws -> FeedRecord {
        let resumeChanges: Bool, resumeURL: String?
        switch commit.resume {
        case .keep: (resumeChanges, resumeURL) = (false, nil)
        case .set(let url): (resumeChanges, resumeURL) = (true, url)
        case .clear: (resumeChanges, resumeURL) = (true, nil)
        }
        return try Self.updateRecord(db, """
            UPDATE feed SET last_fetch_at = ?1, last_success_at = ?1, last_error = NULL, last_error_code = NULL,
                retry_not_before = NULL, next_index = COALESCE(?, next_index),
                etag = CASE WHEN ? THEN ? ELSE etag END,
                last_modified = CASE WHEN ? THEN ? ELSE last_modified END,
                resume_url = CASE WHEN ? THEN ? ELSE resume_url END
            WHERE name = ?
            """, arguments: [
                Timestamp.format(commit.fetchedAt), commit.nextIndex,
                commit.validators != nil, commit.validators?.etag,
                commit.validators != nil, commit.validators?.lastModified,
                resumeChanges, resumeURL, feed,
            ], name: feed)
    }

    /// Commits the bookkeeping of several fetches that found nothing new (no entries: the fetch
    /// time, validators and cursors as each commit says) in one transaction, so a sync of many
    /// quiet feeds pays for one commit rather than one per feed. A feed that no longer exists
    /// fails alone; a failure of the store fails them all (nothing is committed).
    public func commitNothingNew(_ fetches: [(feed: String, commit: FetchCommit)]) throws(FeedFailure) -> [Result<FeedRecord, FeedFailure>] {
        let apply = { (db: Database) throws -> [Result<FeedRecord, FeedFailure>] in
            try fetches.map { fetch in
                do {
                    return .success(try Self.commitBookkeeping(db, feed: fetch.feed, fetch.commit))
                } catch let failure as FeedFailure {
                    return .failure(failure)
                }
            }
        }
        return try fetches.count == 1 ? statements(apply) : write(apply)
    }

    /// Gives `entries` the numbers they will be stored under, before they are printed (so plain
    /// output can show their handles): reserved in a short transaction of their own, counting up,
    /// or for a backfill counting down below every stored entry, so that `next` still delivers
    /// oldest first. Numbers of entries never committed are simply not used.
    public func number(_ entries: [Entry], backfill: Bool) throws(FeedFailure) -> [Entry] {
        guard !entries.isEmpty else { return entries }
        let numbers = try write { db in try Self.reserve(db, count: entries.count, backfill: backfill) }
        return zip(entries, numbers).map { entry, number in
            var entry = entry
            entry.seq = number
            return entry
        }
    }

    /// `count` entry numbers, oldest entry first.
    static func reserve(_ db: Database, count: Int, backfill: Bool) throws -> [Int64] {
        guard count > 0 else { return [] }
        let n = Int64(count)
        // Rows stored some other way (an older feedcli, a script) are respected: seq is the rowid,
        // so MIN and MAX are one index probe each. Backfill numbers are always below zero (0
        // means "not numbered yet" to `commitFetch`).
        if backfill {
            let floor = try Int64.fetchOne(db, sql: """
                UPDATE entry_numbers SET floor = MIN(floor, COALESCE((SELECT MIN(seq) FROM entry), 0), 0) - ? RETURNING floor
                """, arguments: [n]) ?? -n
            return Array(floor..<(floor + n))
        }
        let next = try Int64.fetchOne(db, sql: """
            UPDATE entry_numbers SET next = MAX(next, COALESCE((SELECT MAX(seq) FROM entry), 0) + 1) + ? RETURNING next
            """, arguments: [n]) ?? n + 1
        return Array((next - n)..<next)
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

    /// The entries `reference` names (a handle `@SEQ`, else an id), of `feed` when given
    /// (several feeds may share an id).
    public func entries(id reference: String, feed: String?) throws(FeedFailure) -> [Entry] {
        try read { db in try Self.entries(db, reference: reference, feed: feed) }
    }

    static func entries(_ db: Database, reference: String, feed: String?) throws -> [Entry] {
        if let seq = EntryReference.handle(reference) {
            let found = try Row.fetchAll(
                db, sql: "SELECT \(entryColumns) FROM entry WHERE seq = ? AND (? IS NULL OR feed = ?)",
                arguments: [seq, feed, feed]).map(entry)
            if !found.isEmpty { return found }
        }
        return try Row.fetchAll(
            db, sql: "SELECT \(entryColumns) FROM entry WHERE id = ? AND (? IS NULL OR feed = ?) ORDER BY feed",
            arguments: [blob(reference), feed, feed]).map(entry)
    }

    /// Marks the entries `references` name read (or unread), in one transaction; when one names
    /// no entry, nothing changes and `.notFound` (66) names it. Returns how many changed.
    public func setRead(_ isRead: Bool, references: [String], feed: String?) throws(FeedFailure) -> Int {
        try write { db in
            if let feed { _ = try Self.record(db, name: feed) }
            var changed = 0
            for reference in references {
                let entries = try Self.entries(db, reference: reference, feed: feed)
                guard !entries.isEmpty else {
                    throw FeedFailure.notFound("no entry \(reference)" + (feed.map { " in feed \($0)" } ?? ""))
                }
                for entry in entries {
                    try db.execute(sql: "UPDATE entry SET read = ? WHERE seq = ?", arguments: [isRead, entry.seq])
                    changed += db.changesCount
                }
            }
            return changed
        }
    }

    /// Marks every entry of `feeds` (all feeds when empty) read, in one transaction.
    public func markAllRead(feeds: [String]) throws(FeedFailure) -> Int {
        try write { db in
            guard !feeds.isEmpty else {
                try db.execute(sql: "UPDATE entry SET read = 1 WHERE read = 0")
                return db.changesCount
            }
            var changed = 0
            for feed in feeds {
                _ = try Self.record(db, name: feed)
                try db.execute(sql: "UPDATE entry SET read = 1 WHERE feed = ? AND read = 0", arguments: [feed])
                changed += db.changesCount
            }
            return changed
        }
    }

    /// The oldest unread entry of all feeds (the one stored first), through the (read, seq) index.
    public func oldestUnreadOfAll() throws(FeedFailure) -> Entry? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.entryColumns) FROM entry WHERE read = 0 ORDER BY seq LIMIT 1").map(Self.entry)
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
            sql = "SELECT * FROM (SELECT \(Self.entryColumns) FROM entry \(filter) ORDER BY seq DESC LIMIT ?) ORDER BY seq"
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
    static let entryColumns = "feed, id, title, text, author, url, published, fetched_at, read, source, seq"

    static func entry(_ row: Row) -> Entry {
        Entry(feed: text(row, 0) ?? "", id: text(row, 1) ?? "", title: text(row, 2), text: text(row, 3),
              author: text(row, 4), url: text(row, 5), published: text(row, 6), fetchedAt: text(row, 7) ?? "",
              read: row[8], source: RawJSON(compactText: text(row, 9) ?? "null"), seq: row[10])
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
