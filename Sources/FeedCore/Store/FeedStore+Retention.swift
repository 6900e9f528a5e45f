import CSQLite
import FeedModel
import FeedStoreContract
import FoundationEssentials

/// Retention on SQLite: the prune step a commit takes (`PruneStep`), the expiry of remembered
/// ids, and space given back to the file system in bounded steps (incremental auto-vacuum).
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
        try db.statement(
            """
            DELETE FROM entry WHERE seq IN (\(ReadSplitOrder.feedStored("seq", limit: "?2")))\(condition)
            RETURNING id, read
            """
        ).forEach(arguments) { row in
            outcome.pruned += 1
            if !row.bool(1) { outcome.unread += 1 }
            if step.remembers { keys.append(RememberedID.key(feed: feed, id: row.text(0) ?? "")) }
            return true
        }
        guard outcome.pruned > 0 else { return outcome }
        if !keys.isEmpty {
            // Staged, then one range of what is staged moves on (see `mergeStaged`). An id
            // remembered already keeps the later expiry.
            try stage(db, keys.sorted(), until: step.rememberUntil)
            try markRemembered(db, keys)
            retentionMemo.remembered(until: step.rememberUntil)
            let range = retentionMemo.nextStagedRange(rememberedCount: try rememberedCount(db))
            try mergeStaged(db, range: range, now: now)
        }
        try db.statement(
            """
            UPDATE feed SET entry_count = entry_count - ?1, unread_count = unread_count - ?2,
                pruned = pruned + ?1, pruned_unread = pruned_unread + ?2 WHERE name = ?3
            """
        ).run([.integer(Int64(outcome.pruned)), .integer(Int64(outcome.unread)), .text(feed)])
        return outcome
    }

    /// Stages `keys` (sorted: each insert lands in or beside the page the one before it wrote),
    /// `stagedAtOnce` a statement (one statement a key cost more than its insert); an id staged
    /// already keeps the later expiry.
    private func stage(_ db: SQLiteConnection, _ keys: [Int64], until: Int64?) throws {
        func insert(_ rows: Int) throws -> SQLiteStatement {
            try db.statement(
                "INSERT INTO remembered_staged (key, until) VALUES "
                    + Array(repeating: "(?, ?)", count: rows).joined(separator: ", ")
                    + " ON CONFLICT (key) DO UPDATE SET \(Self.laterExpiry)")
        }
        let until = SQLiteValue(until)
        var start = keys.startIndex
        if keys.count >= Self.stagedAtOnce {
            let many = try insert(Self.stagedAtOnce)
            while keys.endIndex - start >= Self.stagedAtOnce {
                try many.run(keys[start..<start + Self.stagedAtOnce].flatMap { [.integer($0), until] })
                start += Self.stagedAtOnce
            }
        }
        guard start < keys.endIndex else { return }
        let one = try insert(1)
        for key in keys[start...] { try one.run([.integer(key), until]) }
    }

    /// How many ids one statement stages (two of SQLite's 32,766 parameters an id).
    static let stagedAtOnce = 64

    /// Moves the staged ids whose keys are in `range` (a part of the key space:
    /// `RetentionMemo.nextStagedRange`) into `remembered_id`, in key order, keeping the later
    /// expiry of an id in both, and forgets the ids of that range whose time has passed at `now`.
    ///
    /// Why: a prune step's ids are random keys. Inserted straight into `remembered_id`, which a
    /// stream's `--remember` window fills with hundreds of thousands, nearly each was a page of
    /// its own for the journal to take (a step of 1,024 ids rewrote most of the table), and so
    /// was each expired id forgotten. Staged, they rewrite the few pages of a small table that
    /// every step rewrites anyway; moved a range of the key space at a time, a step's move
    /// rewrites that part of the large table, whose pages each take many ids at once, and the
    /// expired ids there go in the same pages. A step's work stays bounded: the staged table
    /// holds about as many steps' ids as the key space has ranges.
    func mergeStaged(_ db: SQLiteConnection, range: ClosedRange<Int64>, now: Date?) throws {
        let bounds: [SQLiteValue] = [.integer(range.lowerBound), .integer(range.upperBound)]
        var change: Int64 = 0
        if let now, retentionMemo.mayExpire(at: Self.seconds(now)) {
            try db.statement("DELETE FROM remembered_id WHERE key BETWEEN ?1 AND ?2 AND until < ?3")
                .run(bounds + [.integer(Self.seconds(now))])
            change -= Int64(db.changes)
        }
        try db.statement(
            """
            INSERT INTO remembered_id (key, until)
                SELECT key, until FROM remembered_staged WHERE key BETWEEN ?1 AND ?2 ORDER BY key
                ON CONFLICT (key) DO UPDATE SET \(Self.laterExpiry)
            """
        ).run(bounds)
        change += Int64(db.changes)  // an id in both counts once too many: a hint only
        try db.statement("DELETE FROM remembered_staged WHERE key BETWEEN ?1 AND ?2").run(bounds)
        retentionMemo.rememberedCountChanged(by: change)
    }

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
        let count =
            try db.statement(
                "SELECT (SELECT COUNT(*) FROM remembered_id) + (SELECT COUNT(*) FROM remembered_staged)"
            ).first { Int($0.int64(0)) } ?? 0
        try rememberedFilter.build(count: count, mark: mark) { add in
            try db.statement("SELECT key FROM remembered_id UNION ALL SELECT key FROM remembered_staged").forEach {
                add($0.int64(0))
                return true
            }
        }
        return mark
    }

    private func storedMark(_ db: SQLiteConnection) throws -> Int64 {
        try db.statement("SELECT token FROM remembered_mark").first { $0.int64(0) } ?? 0
    }

    /// How many ids `remembered_id` holds, counted once an open store and followed since.
    private func rememberedCount(_ db: SQLiteConnection) throws -> Int64 {
        if let known = retentionMemo.rememberedCount { return known }
        let count = try db.statement("SELECT COUNT(*) FROM remembered_id").first { $0.int64(0) } ?? 0
        retentionMemo.rememberedCounted(count)
        return count
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// An upsert's assignment that keeps the later of an id's two expiries (nil, for ever, is
    /// the latest).
    private static let laterExpiry =
        "until = CASE WHEN until IS NULL OR excluded.until IS NULL THEN NULL ELSE MAX(until, excluded.until) END"

    /// Forgets up to `PruneStep.most` remembered ids (any feed's, staged or not) whose time
    /// passed more than `late` seconds before `now`; nothing while the memo knows none has.
    /// Returns how many it forgot.
    ///
    /// Commits forget what is `RememberedID.forgottenLateAtMost` late: while prune steps run,
    /// they forget expired ids sooner and for less (`mergeStaged`), and this finds none.
    @discardableResult
    func forgetExpired(_ db: SQLiteConnection, now: Date, late: Int64 = RememberedID.forgottenLateAtMost) throws
        -> Int
    {
        let seconds = Self.seconds(now).subtractingReportingOverflow(late).partialValue
        guard retentionMemo.mayExpire(at: seconds) else { return 0 }
        var forgotten = 0
        var allDueGone = true
        for table in ["remembered_id", "remembered_staged"] {
            try db.statement(
                """
                DELETE FROM \(table) WHERE key IN (SELECT key FROM \(table) WHERE until < ? ORDER BY until LIMIT ?)
                """
            ).run([.integer(seconds), .integer(Int64(PruneStep.most))])
            forgotten += db.changes
            if table == "remembered_id" { retentionMemo.rememberedCountChanged(by: -Int64(db.changes)) }
            if db.changes >= PruneStep.most { allDueGone = false }
        }
        // Only once all due are gone is the next expiry known (the indexes' first entries).
        if allDueGone {
            let earliest =
                try db.statement(
                    """
                    SELECT MIN(until) FROM (SELECT MIN(until) AS until FROM remembered_id WHERE until IS NOT NULL
                        UNION ALL SELECT MIN(until) FROM remembered_staged WHERE until IS NOT NULL)
                    """
                )
                .first { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
            retentionMemo.expiryChecked(earliest: earliest)
        }
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
            try mergeStaged(db, range: Int64.min...Int64.max, now: nil)
            while try forgetExpired(db, now: now, late: 0) > 0 {}
            return outcome
        }
        try statements { db in try db.execute("VACUUM") }
        return outcome
    }
}
