import FeedModel
import FeedStoreContract
import FoundationEssentials

/// `store copy` into and out of PostgreSQL: the whole store, in one transaction.
extension PostgresStore {
    public func isEmpty() throws(FeedFailure) -> Bool {
        try transaction(readOnly: true) { (db: PostgresConnection) throws(FeedFailure) -> Bool in try Self.isEmpty(db) }
    }

    private static func isEmpty(_ db: PostgresConnection) throws(FeedFailure) -> Bool {
        let builtIn = FeedRegistration.defaultFeed
        let entries = try db.execute("SELECT EXISTS (SELECT 1 FROM entry)")
        let others = try db.execute(
            """
            SELECT EXISTS (SELECT 1 FROM feed WHERE NOT (name = $1 AND url = $2 AND kind = $3 AND last_success_at IS NULL))
            """, [.text(builtIn.name), .text(builtIn.url), .text(builtIn.kind.rawValue)])
        return !entries.row(0).bool(0) && !others.row(0).bool(0)
    }

    public func receiveCopy(
        feeds: [FeedRecord], remembered: [RememberedRow],
        entries: (_ each: (Entry) throws(FeedFailure) -> Void) throws(FeedFailure) -> Void
    ) throws(FeedFailure) {
        try transaction { (db: PostgresConnection) throws(FeedFailure) in
            // Two copies into one database at once: the second waits, then finds it not empty.
            try db.execute("LOCK TABLE feed IN EXCLUSIVE MODE")
            guard try Self.isEmpty(db) else { throw StoreRules.notEmpty(location) }
            try db.execute("DELETE FROM feed")
            for record in feeds {
                let copy = StoreCopyRow(record)
                try db.execute(
                    """
                    INSERT INTO feed (name, url, kind, token_env, next_index, etag, last_modified, retry_not_before, resume_url,
                        last_fetch_at, last_success_at, every_seconds, last_error, last_error_code, expressions, last_skipped,
                        last_filtered, last_kept, last_event_id, last_event_at, created_at, keep, remember, pruned, pruned_unread,
                        title)
                    VALUES ($1, $2, $3, $4, $5::bigint, $6, $7, $8, $9, $10, $11, $12::bigint, $13, $14::bigint, $15, $16::bigint,
                        $17::bigint, $18::bigint, $19, $20, $21, $22, $23, $24::bigint, $25::bigint, $26)
                    """,
                    [
                        .text(record.name), .text(record.registration.url), .text(record.kindName),
                        PostgresValue(record.registration.tokenEnv), PostgresValue(record.nextIndex),
                        PostgresValue(record.validators.etag), PostgresValue(record.validators.lastModified),
                        PostgresValue(copy.retryNotBefore), PostgresValue(record.resumeURL),
                        PostgresValue(copy.lastFetchAt),
                        PostgresValue(copy.lastSuccessAt), PostgresValue(copy.everySeconds),
                        PostgresValue(record.lastError),
                        PostgresValue(record.lastErrorCode.map(Int.init)),
                        PostgresValue(record.registration.expressions.json),
                        PostgresValue(record.lastSkipped), PostgresValue(record.lastFiltered),
                        PostgresValue(record.lastKept),
                        PostgresValue(record.stream?.lastEventID), PostgresValue(copy.lastEventAt),
                        .text(copy.createdAt),
                        PostgresValue(copy.keep), PostgresValue(copy.remember), PostgresValue(record.pruned),
                        PostgresValue(record.prunedUnread), PostgresValue(record.title),
                    ])
            }
            for chunk in stride(from: 0, to: remembered.count, by: 10_000).map({
                remembered[$0..<min($0 + 10_000, remembered.count)]
            }) {
                try db.execute(
                    """
                    INSERT INTO remembered_id (key, until) SELECT * FROM unnest($1::bigint[], $2::bigint[])
                    """,
                    [
                        .text("{" + chunk.map { String($0.key) }.joined(separator: ",") + "}"),
                        .text("{" + chunk.map { $0.until.map(String.init) ?? "NULL" }.joined(separator: ",") + "}"),
                    ])
            }
            // Entries go in batches of many rows a statement (see `insert`).
            var pending: [Entry] = []
            try entries { (entry: Entry) throws(FeedFailure) in
                pending.append(entry)
                if pending.count == 1_024 {
                    _ = try Self.insert(db, pending, skippingStored: false)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            _ = try Self.insert(db, pending, skippingStored: false)
            try db.execute(
                """
                UPDATE feed SET
                    entry_count = (SELECT COUNT(*) FROM entry WHERE entry.feed = feed.name),
                    unread_count = (SELECT COUNT(*) FROM entry WHERE entry.feed = feed.name AND read = false)
                """)
            try db.execute(
                """
                UPDATE entry_numbers SET next = COALESCE((SELECT MAX(seq) FROM entry), 0) + 1,
                    floor = LEAST(COALESCE((SELECT MIN(seq) FROM entry), 1), 1)
                """)
        }
    }

    public func rememberedIDs() throws(FeedFailure) -> [RememberedRow] {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> [RememberedRow] in
            try db.execute("SELECT key, until FROM remembered_id ORDER BY key").rows.map { row throws(FeedFailure) in
                RememberedRow(key: Int64(try row.requiredInteger(0)), until: try row.integer(1).map(Int64.init))
            }
        }
    }
}
