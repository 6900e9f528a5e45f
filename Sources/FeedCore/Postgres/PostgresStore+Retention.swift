import FeedModel
import FeedStoreContract
import FoundationEssentials

/// Retention on PostgreSQL: the prune step after a commit (`PruneStep`), in a transaction of its
/// own right after the commit's (a run killed in between leaves the step to the next commit),
/// and the expiry of remembered ids. Deleted rows are left to autovacuum.
extension PostgresStore {
    /// One prune step of `record`'s feed after a commit at `now` that stored `stored` entries;
    /// the record as it is after. No round trip for a feed that keeps all; one (expired ids
    /// forgotten) for a feed that has nothing to prune, two when it keeps a duration.
    func retain(_ record: FeedRecord, now: Date, stored: Int, limit: Int? = nil) throws(FeedFailure) -> FeedRecord {
        guard record.retention.keep != .all else { return record }
        guard let step = PruneStep.plan(record, now: now, stored: stored, limit: limit) else {
            // Nothing to prune: remembered ids still expire (a statement by itself).
            try withConnection { (db: PostgresConnection) throws(FeedFailure) in try Self.forgetExpired(db, now: now) }
            return record
        }
        let feed = record.name
        if let before = step.storedBefore {
            let oldEnough = try withConnection { (db: PostgresConnection) throws(FeedFailure) -> Bool in
                let found = try db.execute(
                    "SELECT fetched_at FROM entry WHERE feed = $1 ORDER BY seq LIMIT 1", [.text(feed)])
                return found.rows.first?.text(0).map { $0 < before } ?? false
            }
            guard oldEnough else {
                try withConnection { (db: PostgresConnection) throws(FeedFailure) in
                    try Self.forgetExpired(db, now: now)
                }
                return record
            }
        }
        return try transaction { (db: PostgresConnection) throws(FeedFailure) -> FeedRecord in
            try Self.forgetExpired(db, now: now)
            let condition =
                step.storedBefore == nil
                ? "" : " AND fetched_at < $3 AND seq < (SELECT MAX(seq) FROM entry WHERE feed = $1)"
            var values: [PostgresValue] = [.text(feed), PostgresValue(step.limit)]
            if let before = step.storedBefore { values.append(.text(before)) }
            let gone = try db.execute(
                """
                DELETE FROM entry WHERE seq IN (SELECT seq FROM entry WHERE feed = $1 ORDER BY seq LIMIT $2::bigint)\(condition)
                RETURNING id, read
                """, values)
            guard gone.count > 0 else { return record }
            var unread = 0
            var keys: [String] = []
            for row in gone.rows {
                if !row.bool(1) { unread += 1 }
                if step.remembers { keys.append(String(RememberedID.key(feed: feed, id: row.text(0) ?? ""))) }
            }
            if !keys.isEmpty {
                // An id remembered already keeps the later expiry (NULL: for ever).
                try db.execute(
                    """
                    INSERT INTO remembered_id (key, until) SELECT key, $2::bigint FROM unnest($1::bigint[]) AS pruned(key)
                    ON CONFLICT (key) DO UPDATE SET until = CASE WHEN remembered_id.until IS NULL OR excluded.until IS NULL
                        THEN NULL ELSE GREATEST(remembered_id.until, excluded.until) END
                    """, [.text("{" + keys.joined(separator: ",") + "}"), PostgresValue(step.rememberUntil)])
            }
            return try Self.updateRecord(
                db,
                """
                UPDATE feed SET entry_count = entry_count - $1::bigint, unread_count = unread_count - $2::bigint,
                    pruned = pruned + $1::bigint, pruned_unread = pruned_unread + $2::bigint WHERE name = $3
                """, [PostgresValue(gone.count), PostgresValue(unread), .text(feed)], name: feed)
        }
    }

    /// Forgets up to `PruneStep.most` remembered ids whose time has passed (any feed's). Run with
    /// each commit of a feed that does not keep all, so ids expire while any such feed is synced.
    static func forgetExpired(_ db: PostgresConnection, now: Date) throws(FeedFailure) {
        try db.execute(
            """
            DELETE FROM remembered_id WHERE key IN (SELECT key FROM remembered_id WHERE until < $1::bigint ORDER BY until LIMIT $2::bigint)
            """, [PostgresValue(Int64(now.timeIntervalSince1970.rounded(.down))), PostgresValue(PruneStep.most)])
    }
}

extension PostgresStore {
    /// `feedcli store compact`: every feed pruned to what it keeps now (no step bound), expired
    /// ids forgotten, then `VACUUM (FULL)` rewrites the tables to their smallest size (other
    /// runs wait for its locks as for any write).
    public func compact(now: Date) throws(FeedFailure) -> PruneOutcome {
        var outcome = PruneOutcome()
        for before in try feeds() {
            let after = try retain(before, now: now, stored: 0, limit: Int.max)
            outcome.pruned += after.pruned - before.pruned
            outcome.unread += after.prunedUnread - before.prunedUnread
        }
        try withConnection { (db: PostgresConnection) throws(FeedFailure) in
            while try db.execute(
                """
                DELETE FROM remembered_id WHERE key IN (SELECT key FROM remembered_id WHERE until < $1::bigint)
                """, [PostgresValue(Int64(now.timeIntervalSince1970.rounded(.down)))]
            ).changed > 0 {}
            try db.execute("VACUUM (FULL) entry, remembered_id, feed")
        }
        return outcome
    }
}
