import CSQLite
import FeedModel
import FeedStoreContract
import FoundationEssentials

/// Retention on SQLite: the prune step a commit takes (`PruneStep`), the pruned ids remembered
/// in generations and forgotten a generation at a time (`RememberedGeneration`), and space given
/// back to the file system in bounded steps (incremental auto-vacuum).
extension FeedStore {
    /// After a commit of `record`'s feed at `now` that stored `stored` entries: one prune step,
    /// expired remembered ids forgotten, freed pages given back when many are free. Returns the
    /// record as it is after. Inside the commit's transaction, or a transaction of its own after a
    /// lone statement's commit.
    func retain(_ db: SQLiteConnection, _ record: FeedRecord, now: Date, stored: Int, limit: Int? = nil) throws
        -> FeedRecord
    {
        try forgetExpired(db, now: now)
        guard let step = PruneStep.plan(record, now: now, stored: stored, limit: limit) else { return record }
        // Atomic with the commit's transaction; a lone statement's commit takes one of its own.
        let outcome =
            try sqlite3_get_autocommit(db.handle) == 0
            ? prune(db, feed: record.name, step, now: now)
            : db.transaction(immediate: true) { try prune(db, feed: record.name, step, now: now) }
        guard outcome.pruned > 0 else { return record }
        try Self.giveBackSpace(db)
        // The record as the step left it, without reading it again; only its read cursor may
        // have gone with a read entry, and then it is read again.
        guard outcome.read == 0 else { return try Self.record(db, name: record.name) }
        var after = record
        after.total -= outcome.pruned
        after.unread -= outcome.unread
        after.pruned += outcome.pruned
        after.prunedUnread += outcome.unread
        return after
    }

    /// Removes the entries `step` names and remembers their ids; the feed's counts follow.
    private func prune(_ db: SQLiteConnection, feed: String, _ step: PruneStep, now: Date) throws -> PruneOutcome {
        var arguments: [SQLiteValue] = [.text(feed), .integer(Int64(step.limit))]
        var condition = ""
        if let before = step.storedBefore {
            // One probe says whether the oldest entry is old enough (none while the memo knows
            // it is not); only then are the oldest `limit` looked at (entries are stored in
            // number order, so the old ones are first).
            if let known = retentionMemo.oldestStored(feed: feed), known >= before { return PruneOutcome() }
            let oldest =
                try db.statement(ReadSplitOrder.feedStored("fetched_at, seq", limit: "1"))
                .first([.text(feed)]) { $0.text(0) } ?? nil
            retentionMemo.setOldestStored(oldest, feed: feed)
            guard let oldest, oldest < before else { return PruneOutcome() }
            retentionMemo.setOldestStored(nil, feed: feed)  // about to change
            condition = " AND fetched_at < ?3 AND seq < \(ReadSplitOrder.feedNewestNumber)"
            arguments.append(.text(before))
        }
        var outcome = PruneOutcome()
        var keys: [Int64] = []
        var pruned: [SearchIndex.Row] = []
        try db.statement(
            """
            DELETE FROM entry WHERE seq IN (\(ReadSplitOrder.feedStored("seq", limit: "?2")))\(condition)
            RETURNING \(SearchIndex.indexedColumns), id, read
            """
        ).forEach(arguments) { row in
            outcome.pruned += 1
            if !row.bool(7) { outcome.unread += 1 }
            if step.remembers { keys.append(RememberedID.key(feed: feed, id: row.text(6) ?? "")) }
            pruned.append(SearchIndex.Row(row))
            return true
        }
        // Out of the index in the same transaction (a pruned entry is never a result).
        try SearchIndex.remove(db, pruned)
        guard outcome.pruned > 0 else { return outcome }
        if !keys.isEmpty {
            let expires = RememberedGeneration.expiry(until: step.rememberUntil, now: Self.seconds(now))
            try remember(db, keys.sorted(), expires: expires)
            try markRemembered(db, keys)
            retentionMemo.remembered(expiring: expires)
        }
        try db.statement(
            """
            UPDATE feed SET entry_count = entry_count - ?1, unread_count = unread_count - ?2,
                pruned = pruned + ?1, pruned_unread = pruned_unread + ?2 WHERE name = ?3
            """
        ).run([.integer(Int64(outcome.pruned)), .integer(Int64(outcome.unread)), .text(feed)])
        return outcome
    }

    /// Files `keys` (sorted: each insert lands in or beside the page the one before it wrote) in
    /// the generation `expires`, `rememberedAtOnce` a statement (one statement a key cost more
    /// than its insert); a key filed there already stays as it is.
    private func remember(_ db: SQLiteConnection, _ keys: [Int64], expires: Int64) throws {
        func insert(_ rows: Int) throws -> SQLiteStatement {
            try db.statement(
                "INSERT INTO remembered (expires, key) VALUES "
                    + Array(repeating: "(?, ?)", count: rows).joined(separator: ", ") + " ON CONFLICT DO NOTHING")
        }
        let generation = SQLiteValue.integer(expires)
        var start = keys.startIndex
        if keys.count >= Self.rememberedAtOnce {
            let many = try insert(Self.rememberedAtOnce)
            while keys.endIndex - start >= Self.rememberedAtOnce {
                try many.run(keys[start..<start + Self.rememberedAtOnce].flatMap { [generation, .integer($0)] })
                start += Self.rememberedAtOnce
            }
        }
        guard start < keys.endIndex else { return }
        let one = try insert(1)
        for key in keys[start...] { try one.run([generation, .integer(key)]) }
    }

    /// How many ids one statement files (two of SQLite's 32,766 parameters an id).
    static let rememberedAtOnce = 64

    /// After `keys` were remembered in `db`'s transaction: the store's mark set anew, and the
    /// keys in this store's filter when it was current (see `RememberedFilter`).
    func markRemembered(_ db: SQLiteConnection, _ keys: [Int64]) throws {
        let previous = try storedMark(db)
        let mark = Int64.random(in: .min ... .max)
        try db.statement("UPDATE remembered_mark SET token = ?").run([.integer(mark)])
        rememberedFilter.added(keys, previous: previous, mark: mark)
    }

    /// The store's mark of remembered ids, and the filter built anew at it when probing has cost
    /// as much as building would (`RememberedFilter.shouldBuild`). In `db`'s read transaction.
    func rememberedMark(_ db: SQLiteConnection) throws -> Int64 {
        let mark = try storedMark(db)
        guard rememberedFilter.shouldBuild() else { return mark }
        let count = try db.statement("SELECT COUNT(*) FROM remembered").first { Int($0.int64(0)) } ?? 0
        try rememberedFilter.build(count: count, mark: mark) { add in
            try db.statement("SELECT key FROM remembered").forEach {
                add($0.int64(0))
                return true
            }
        }
        return mark
    }

    private func storedMark(_ db: SQLiteConnection) throws -> Int64 {
        try db.statement("SELECT token FROM remembered_mark").first { $0.int64(0) } ?? 0
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// Forgets up to `PruneStep.most` remembered ids (any feed's) whose generation ended before
    /// `now`, oldest first; nothing while the memo knows none has. Returns how many it forgot.
    /// The oldest generations are the table's first pages: forgetting frees them whole.
    @discardableResult
    func forgetExpired(_ db: SQLiteConnection, now: Date) throws -> Int {
        let seconds = Self.seconds(now)
        guard retentionMemo.mayExpire(at: seconds) else { return 0 }
        // The first id past this step's bound, if there are more expired ids than a step takes.
        let bound = try db.statement(
            "SELECT expires, key FROM remembered WHERE expires < ?1 ORDER BY expires, key LIMIT 1 OFFSET ?2"
        ).first([.integer(seconds), .integer(Int64(PruneStep.most))]) { [$0.int64(0), $0.int64(1)] }
        if let bound {
            try db.statement("DELETE FROM remembered WHERE (expires, key) < (?1, ?2)").run(bound.map { .integer($0) })
            return db.changes
        }
        try db.statement("DELETE FROM remembered WHERE expires < ?").run([.integer(seconds)])
        let forgotten = db.changes
        // All due are gone: the next expiry is the table's first generation.
        let earliest = try db.statement("SELECT MIN(expires) FROM remembered").first {
            $0.isNull(0) ? RememberedGeneration.forever : $0.int64(0)
        }
        retentionMemo.expiryChecked(earliest: earliest ?? RememberedGeneration.forever)
        return forgotten
    }

    /// Gives free pages back to the file system once more than an eighth of the file is free,
    /// down to a sixteenth, at most `mostPagesGivenBack` a step: a store at a steady size reuses
    /// its free pages rather than shrinking and growing again. Nothing on a store that is not in
    /// incremental auto-vacuum (see `convertToIncrementalVacuum`).
    private static func giveBackSpace(_ db: SQLiteConnection) throws {
        let free = try db.statement("PRAGMA freelist_count").first { $0.int64(0) } ?? 0
        guard free > 64 else { return }
        let pages = try db.statement("PRAGMA page_count").first { $0.int64(0) } ?? 0
        guard free * 8 > pages else { return }
        try db.execute("PRAGMA incremental_vacuum(\(min(free - pages / 16, mostPagesGivenBack)))")
    }

    static let mostPagesGivenBack: Int64 = 2048

    /// Whether the store gives freed pages back (`PRAGMA auto_vacuum` is incremental).
    static func givesBackSpace(_ db: SQLiteConnection) throws -> Bool {
        try db.statement("PRAGMA auto_vacuum").first { $0.int64(0) } == 2
    }
}

extension FeedStore {
    /// `feedcli store compact`: every feed pruned to what it keeps now (no step bound), expired
    /// ids forgotten, then `VACUUM` rewrites the file to its smallest size. SQLite's write lock
    /// is held throughout; other runs wait for it as for any write (`--wait`).
    public func compact(now: Date) throws(FeedFailure) -> PruneOutcome {
        let outcome = try write { db in
            var outcome = PruneOutcome()
            var names: [String] = []
            try db.statement("SELECT name FROM feed ORDER BY name").forEach { row in
                names.append(row.text(0) ?? "")
                return true
            }
            for name in names {
                let before = try Self.record(db, name: name)
                let after = try retain(db, before, now: now, stored: 0, limit: Int.max)
                outcome.pruned += after.pruned - before.pruned
                outcome.unread += after.prunedUnread - before.prunedUnread
            }
            while try forgetExpired(db, now: now) > 0 {}
            try SearchIndex.optimize(db)
            return outcome
        }
        try statements { db in
            try db.execute("VACUUM")
            // The VACUUM went through the journal: copied back and cut to nothing, so the store
            // ends its smallest (other runs wait for the store's lock, so nothing reads now).
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return outcome
    }
}
