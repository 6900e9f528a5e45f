import FeedModel
import FeedStoreContract
import FoundationEssentials
import Glibc

/// Entries: delivery, storage, listing.
///
/// Entry text (`id`, `title`, `text`, `author`, `url`) is stored as UTF-8 blobs so that every
/// character survives, NUL included (see schema v3).
extension FeedStore {
    /// The oldest unread entry of `feed`, without marking it: `markDelivered` does that once it
    /// has been printed. Uses the (feed, read, seq) index, so its cost does not grow with history.
    public func oldestUnread(feed: String) throws(FeedFailure) -> Entry? {
        try read { db in
            try db.statement("SELECT \(Self.entryColumns) FROM entry WHERE feed = ? AND read = 0 ORDER BY seq LIMIT 1")
                .first([.text(feed)], Self.entry)
        }
    }

    /// Marks a printed entry read; returns the feed's record after the change.
    public func markDelivered(feed: String, id: String) throws(FeedFailure) -> FeedRecord {
        try write { db in
            try db.statement("UPDATE entry SET read = 1 WHERE feed = ? AND id = ?").run([.text(feed), .blob(id)])
            return try Self.record(db, name: feed)
        }
    }

    /// Stores `entries` (in the given order, oldest first) and the fetch's bookkeeping in one
    /// transaction, clearing the feed's last error and retry time. Entries whose id is already
    /// stored are skipped; returns the ones that were new and the feed's record after the change.
    @discardableResult
    public func commitFetch(feed: String, entries: [Entry], _ commit: FetchCommit) throws(FeedFailure) -> CommitOutcome
    {
        try write { db in
            var inserted: [Entry] = []
            // Entries numbered by `number(_:backfill:)` keep their numbers; others get theirs now.
            let unnumbered = entries.filter { $0.seq == 0 }.count
            var numbers = try Self.reserve(db, count: unnumbered, backfill: commit.isBackfill).makeIterator()
            var numbered = entries
            for index in numbered.indices where numbered[index].seq == 0 {
                if let number = numbers.next() { numbered[index].seq = number }
            }
            // One row a statement: a statement of several rows that may abort (the foreign key
            // on `feed`, the primary key) makes SQLite keep a statement journal, which past 64 KiB
            // goes to a temporary file, opened, written and removed at every commit.
            let insert = try db.statement(Self.insert)
            for entry in numbered {
                try insert.run([
                    .integer(entry.seq), .text(feed), .blob(entry.id), .blob(entry.title),
                    .blob(entry.text), .blob(entry.author), .blob(entry.url), SQLiteValue(entry.published),
                    .text(entry.fetchedAt), SQLiteValue(entry.read), .text(entry.source.text),
                ])
                if db.changes == 1 { inserted.append(entry) }
            }
            // The feed's counts, once for the batch (a trigger a row cost a third of each insert).
            if !inserted.isEmpty {
                try db.statement(
                    "UPDATE feed SET entry_count = entry_count + ?, unread_count = unread_count + ? WHERE name = ?"
                )
                .run([.integer(Int64(inserted.count)), .integer(Int64(inserted.count { !$0.read })), .text(feed)])
            }
            let record = try Self.commitBookkeeping(db, feed: feed, commit)
            return CommitOutcome(
                entries: inserted, record: try self.retain(db, record, now: commit.fetchedAt, stored: inserted.count))
        }
    }

    /// Stores one entry, unless its id is stored already (then nothing changes).
    private static let insert = """
        INSERT INTO entry (seq, feed, id, title, text, author, url, published, fetched_at, read, source)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (feed, id) DO NOTHING
        """

    /// The feed's side of a successful fetch: its time, validators, index and backfill cursor
    /// as `commit` says, the last error and retry time cleared. Returns the record after it.
    private static func commitBookkeeping(_ db: SQLiteConnection, feed: String, _ commit: FetchCommit) throws
        -> FeedRecord
    {
        let (resumeChanges, resumeURL) = commit.resumeColumn
        let skipped = commit.skipped.column
        let filtered = commit.filtered.column
        let kept = commit.kept.column
        return try Self.updateRecord(
            db,
            """
            UPDATE feed SET last_fetch_at = ?1, last_success_at = ?1, last_error = NULL, last_error_code = NULL,
                retry_not_before = NULL, next_index = COALESCE(?, next_index),
                etag = CASE WHEN ? THEN ? ELSE etag END,
                last_modified = CASE WHEN ? THEN ? ELSE last_modified END,
                resume_url = CASE WHEN ? THEN ? ELSE resume_url END,
                last_skipped = CASE WHEN ? THEN last_skipped ELSE 0 END + ?,
                last_filtered = CASE WHEN ? THEN last_filtered ELSE 0 END + ?,
                last_kept = CASE WHEN ? THEN last_kept ELSE 0 END + ?,
                last_event_id = CASE WHEN ? THEN ? ELSE last_event_id END,
                last_event_at = CASE WHEN ? THEN ? ELSE last_event_at END
            WHERE name = ?
            """,
            arguments: [
                .text(Timestamp.format(commit.fetchedAt)), SQLiteValue(commit.nextIndex),
                SQLiteValue(commit.validators != nil), SQLiteValue(commit.validators?.etag),
                SQLiteValue(commit.validators != nil), SQLiteValue(commit.validators?.lastModified),
                SQLiteValue(resumeChanges), SQLiteValue(resumeURL), SQLiteValue(skipped.adds),
                SQLiteValue(skipped.count),
                SQLiteValue(filtered.adds), SQLiteValue(filtered.count), SQLiteValue(kept.adds),
                SQLiteValue(kept.count),
                SQLiteValue(commit.stream != nil), SQLiteValue(commit.stream?.lastEventID),
                SQLiteValue(commit.stream != nil), SQLiteValue(commit.stream.map { Timestamp.format($0.lastEventAt) }),
                .text(feed),
            ], name: feed)
    }

    /// Commits the bookkeeping of several fetches that found nothing new (no entries: the fetch
    /// time, validators and cursors as each commit says) in one transaction, so a sync of many
    /// quiet feeds pays for one commit rather than one per feed. A feed that no longer exists
    /// fails alone; a failure of the store fails them all (nothing is committed).
    public func commitNothingNew(_ fetches: [(feed: String, commit: FetchCommit)]) throws(FeedFailure) -> [Result<
        FeedRecord, FeedFailure
    >] {
        let apply = { (db: SQLiteConnection) throws -> [Result<FeedRecord, FeedFailure>] in
            try fetches.map { fetch in
                do {
                    let record = try Self.commitBookkeeping(db, feed: fetch.feed, fetch.commit)
                    return .success(try self.retain(db, record, now: fetch.commit.fetchedAt, stored: 0))
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
    package static func reserve(_ db: SQLiteConnection, count: Int, backfill: Bool) throws -> [Int64] {
        guard count > 0 else { return [] }
        let n = Int64(count)
        // Rows stored some other way (an older feedcli, a script) are respected: seq is the rowid,
        // so MIN and MAX are one index probe each. Backfill numbers are always below zero (0
        // means "not numbered yet" to `commitFetch`). The UPDATE is read back by a SELECT of its
        // own: `RETURNING` holds its rows in a temporary b-tree, opened and closed (its page
        // cache allocated and freed) at every reservation: a sixth of what the thread that
        // prints and commits a fast follow did, where the two statements are 3%.
        if backfill {
            try db.statement(
                "UPDATE entry_numbers SET floor = MIN(floor, COALESCE((SELECT MIN(seq) FROM entry), 0), 0) - ?"
            ).run([.integer(n)])
            let floor = try db.statement("SELECT floor FROM entry_numbers").first([]) { $0.int64(0) } ?? -n
            return Array(floor..<(floor + n))
        }
        try db.statement("UPDATE entry_numbers SET next = MAX(next, COALESCE((SELECT MAX(seq) FROM entry), 0) + 1) + ?")
            .run([.integer(n)])
        let next = try db.statement("SELECT next FROM entry_numbers").first([]) { $0.int64(0) } ?? n + 1
        return Array((next - n)..<next)
    }

    /// The id of the feed's newest stored entry.
    public func newestEntryID(feed: String) throws(FeedFailure) -> String? {
        try statements { db in
            try db.statement(ReadSplitOrder.feedStored("id, seq", newestFirst: true, limit: "1")).first([.text(feed)]) {
                $0.text(0)
            } ?? nil
        }
    }

    /// Which of `ids` the feed holds or remembers (`RememberedID`, in any generation). One indexed
    /// lookup per id, and one statement more (a probe of each generation,
    /// `RememberedGeneration.probe`) for an id not held that the filter cannot rule out: no limit
    /// on how many (a page may hold hundreds of thousands) and no statement that grows with them.
    public func knownIDs(feed: String, among ids: [String]) throws(FeedFailure) -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            let stored = try db.statement("SELECT 1 FROM entry WHERE feed = ? AND id = ?")
            let remembered = try db.statement(RememberedGeneration.probe)
            // A feed that never pruned remembers nothing of its own: no probe a new id.
            let hasPruned =
                try db.statement("SELECT pruned > 0 FROM feed WHERE name = ?").first([.text(feed)]) { $0.bool(0) }
                ?? false
            // Most ids are not remembered: the filter says so without a probe (`RememberedFilter`).
            let mark = hasPruned ? try rememberedMark(db) : 0
            func isRemembered(_ id: String) throws -> Bool {
                let key = RememberedID.key(feed: feed, id: id)
                guard rememberedFilter.mayHold(key, mark: mark) else { return false }
                return try remembered.first([.integer(key)], { _ in true }) != nil
            }
            var known = Set<String>()
            for id in ids {
                if try stored.first([.text(feed), .blob(id)], { _ in true }) != nil || (hasPruned && isRemembered(id)) {
                    known.insert(id)
                }
            }
            return known
        }
    }

    /// The entries `reference` names (a handle `@SEQ`, else an id), of `feed` when given
    /// (several feeds may share an id).
    public func entries(id reference: String, feed: String?) throws(FeedFailure) -> [Entry] {
        try read { db in try Self.entries(db, reference: reference, feed: feed) }
    }

    package static func entries(_ db: SQLiteConnection, reference: String, feed: String?) throws -> [Entry] {
        func all(_ sql: String, _ arguments: [SQLiteValue]) throws -> [Entry] {
            var found: [Entry] = []
            try db.statement(sql).forEach(arguments) { row in
                found.append(try entry(row))
                return true
            }
            return found
        }
        if let seq = EntryReference.handle(reference) {
            let found = try all(
                "SELECT \(entryColumns) FROM entry WHERE seq = ? AND (? IS NULL OR feed = ?)",
                [SQLiteValue(seq), SQLiteValue(feed), SQLiteValue(feed)])
            if !found.isEmpty { return found }
        }
        return try all(
            "SELECT \(entryColumns) FROM entry WHERE id = ? AND (? IS NULL OR feed = ?) ORDER BY feed",
            [.blob(reference), SQLiteValue(feed), SQLiteValue(feed)])
    }

    /// Marks the entries `references` name read (or unread), in one transaction; when one names
    /// no entry, nothing changes and `.notFound` (66) names it. Returns how many changed.
    public func setRead(_ isRead: Bool, references: [String], feed: String?) throws(FeedFailure) -> Int {
        try write { db in
            if let feed { _ = try Self.record(db, name: feed) }
            var changed = 0
            for reference in references {
                let found = try Self.entries(db, reference: reference, feed: feed)
                for entry in try StoreRules.entriesToMark(reference, feed: feed, found: found) {
                    try db.statement("UPDATE entry SET read = ? WHERE seq = ?").run([
                        SQLiteValue(isRead), .integer(entry.seq),
                    ])
                    changed += db.changes
                }
            }
            return changed
        }
    }

    /// Marks the entries numbered `numbers` of `feed` read, in one transaction (what a new
    /// `--filter` drops of the stored unread entries); returns how many were unread.
    public func markRead(feed: String, numbers: [Int64]) throws(FeedFailure) -> Int {
        try write { db in
            _ = try Self.record(db, name: feed)
            let update = try db.statement("UPDATE entry SET read = 1 WHERE feed = ? AND seq = ? AND read = 0")
            var changed = 0
            for number in numbers {
                try update.run([.text(feed), .integer(number)])
                changed += db.changes
            }
            return changed
        }
    }

    /// Marks every entry of `feeds` (all feeds when empty) read, in one transaction.
    public func markAllRead(feeds: [String]) throws(FeedFailure) -> Int {
        try write { db in
            guard !feeds.isEmpty else {
                try db.statement("UPDATE entry SET read = 1 WHERE read = 0").run()
                return db.changes
            }
            var changed = 0
            for feed in feeds {
                _ = try Self.record(db, name: feed)
                try db.statement("UPDATE entry SET read = 1 WHERE feed = ? AND read = 0").run([.text(feed)])
                changed += db.changes
            }
            return changed
        }
    }

    /// The oldest unread entry of `feeds` (all when nil) by publication: `published`, else
    /// `fetched_at`, ties in storage order; through the index of that order (schema v6), so the
    /// cost does not grow with what is unread.
    public func oldestUnread(feeds: [String]?) throws(FeedFailure) -> Entry? {
        let among =
            feeds.map { " AND feed IN (\(Array(repeating: "?", count: $0.count).joined(separator: ", ")))" } ?? ""
        return try read { db in
            try db.statement(
                """
                SELECT \(Self.entryColumns) FROM entry WHERE read = 0\(among)
                ORDER BY COALESCE(published, fetched_at), seq LIMIT 1
                """
            ).first((feeds ?? []).map { .text($0) }, Self.entry)
        }
    }

    /// Streams the entries of `feeds` (all feeds when empty), oldest or newest first in `order`;
    /// `limit` keeps the newest N either way.
    public func forEachEntry(
        feeds: [String], unreadOnly: Bool, limit: Int?, newestFirst: Bool, order: EntryOrder,
        _ body: (Entry) throws -> Bool
    ) throws(FeedFailure) {
        let (sql, arguments) = Self.listing(
            feeds: feeds, unreadOnly: unreadOnly, limit: limit, newestFirst: newestFirst, order: order)
        try read { db in
            try db.statement(sql).forEach(arguments) { row in try body(Self.entry(row)) }
        }
    }

    /// `forEachEntry`'s statement and its arguments.
    static func listing(feeds: [String], unreadOnly: Bool, limit: Int?, newestFirst: Bool, order: EntryOrder) -> (
        sql: String, arguments: [SQLiteValue]
    ) {
        var conditions: [String] = []
        var arguments: [SQLiteValue] = []
        if !feeds.isEmpty {
            conditions.append("feed IN (\(Array(repeating: "?", count: feeds.count).joined(separator: ", ")))")
            arguments += feeds.map { .text($0) }
        }
        if unreadOnly { conditions.append("read = 0") }
        // Unread and read entries merged, each arm read in order from its range of an index
        // (`ReadSplitOrder`), their conditions holding the feeds' parameters once each; all
        // feeds in storage order are the table's own order.
        let arms = unreadOnly || (order == .stored && feeds.isEmpty) ? [] : ["read = 0", "read = 1"]
        arguments = arms.isEmpty ? arguments : arguments + arguments
        if let limit { arguments.append(SQLiteValue(limit)) }
        let sql = EntryListing.query(
            where: conditions, order: order, newestFirst: newestFirst, limitParameter: limit == nil ? nil : "?",
            arms: arms)
        return (sql, arguments)
    }

    package static let entryColumns = StoreColumns.entry

    package static func entry(_ row: SQLiteRow) throws(FeedFailure) -> Entry {
        try row.entry()
    }
}
