import FeedModel
import FeedStoreContract
import FoundationEssentials

/// The SQLite store as every command uses it (`StateStore`): the feed locks under the protocol's
/// names, what a command calls when done, and `store copy` into and out of a file.
extension FeedStore: StateStore {
    public var location: String { path }

    public func lock(feed: String) throws(FeedFailure) -> any HeldFeedLock {
        try lock(feedNamed: feed)
    }

    public func attemptLock(feed: String) throws(FeedFailure) -> (any HeldFeedLock)? {
        try attemptLock(feedNamed: feed)
    }

    public func finish() { boundJournal() }

    public func isEmpty() throws(FeedFailure) -> Bool {
        try read { db in try Self.isEmpty(db) }
    }

    private static func isEmpty(_ db: SQLiteConnection) throws -> Bool {
        let builtIn = FeedRegistration.defaultFeed
        let entries = try db.statement("SELECT COUNT(*) FROM entry").first { $0.int64(0) } ?? 0
        let others =
            try db.statement(
                """
                SELECT COUNT(*) FROM feed WHERE NOT (name = ? AND url = ? AND kind = ? AND last_success_at IS NULL)
                """
            ).first([.text(builtIn.name), .text(builtIn.url), .text(builtIn.kind.rawValue)]) { $0.int64(0) } ?? 0
        return entries == 0 && others == 0
    }

    public func receiveCopy(
        feeds: [FeedRecord], remembered: [RememberedRow],
        entries: (_ each: (Entry) throws(FeedFailure) -> Void) throws(FeedFailure) -> Void
    ) throws(FeedFailure) {
        try write { db in
            guard try Self.isEmpty(db) else { throw StoreRules.notEmpty(path) }
            try db.execute("DELETE FROM feed")
            let insertFeed = try db.statement(
                """
                INSERT INTO feed (name, url, kind, token_env, next_index, etag, last_modified, retry_not_before, resume_url,
                    last_fetch_at, last_success_at, every_seconds, last_error, last_error_code, expressions, last_skipped,
                    last_filtered, last_kept, last_event_id, last_event_at, created_at, keep, remember, pruned, pruned_unread,
                    title)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for record in feeds {
                let copy = StoreCopyRow(record)
                try insertFeed.run([
                    .text(record.name), .text(record.registration.url), .text(record.kindName),
                    SQLiteValue(record.registration.tokenEnv), .integer(Int64(record.nextIndex)),
                    SQLiteValue(record.validators.etag), SQLiteValue(record.validators.lastModified),
                    SQLiteValue(copy.retryNotBefore), SQLiteValue(record.resumeURL), SQLiteValue(copy.lastFetchAt),
                    SQLiteValue(copy.lastSuccessAt), SQLiteValue(copy.everySeconds), SQLiteValue(record.lastError),
                    SQLiteValue(record.lastErrorCode.map(Int64.init)),
                    SQLiteValue(record.registration.expressions.json),
                    .integer(Int64(record.lastSkipped)), .integer(Int64(record.lastFiltered)),
                    .integer(Int64(record.lastKept)),
                    SQLiteValue(record.stream?.lastEventID), SQLiteValue(copy.lastEventAt), .text(copy.createdAt),
                    SQLiteValue(copy.keep), SQLiteValue(copy.remember), .integer(Int64(record.pruned)),
                    .integer(Int64(record.prunedUnread)), SQLiteValue(record.title),
                ])
            }
            let now = Int64(Date.now.timeIntervalSince1970)
            let remember = try db.statement("INSERT OR IGNORE INTO remembered (expires, key) VALUES (?, ?)")
            for row in remembered {
                try remember.run([.integer(RememberedGeneration.expiry(until: row.until, now: now)), .integer(row.key)])
            }
            try markRemembered(db, remembered.map(\.key))
            let insertEntry = try db.statement(
                """
                INSERT INTO entry (seq, feed, id, title, text, author, url, published, fetched_at, read, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            try entries { (entry: Entry) throws(FeedFailure) in
                do {
                    try insertEntry.run([
                        .integer(entry.seq), .text(entry.feed), .blob(entry.id), .blob(entry.title), .blob(entry.text),
                        .blob(entry.author), .blob(entry.url), SQLiteValue(entry.published), .text(entry.fetchedAt),
                        SQLiteValue(entry.read), .text(entry.source.text),
                    ])
                } catch {
                    throw StoreFile.failure(error, path: path)
                }
            }
            try db.execute(
                """
                UPDATE feed SET
                    entry_count = (SELECT COUNT(*) FROM entry WHERE entry.feed = feed.name),
                    unread_count = (SELECT COUNT(*) FROM entry WHERE entry.feed = feed.name AND read = 0);
                UPDATE entry_numbers SET next = COALESCE((SELECT MAX(seq) FROM entry), 0) + 1,
                    floor = MIN(COALESCE((SELECT MIN(seq) FROM entry), 1), 1);
                """)
            try SearchIndex.forgetAll(db)
        }
    }

    public func rememberedIDs() throws(FeedFailure) -> [RememberedRow] {
        try read { db in
            var rows: [RememberedRow] = []
            // An id in several generations (remembered again) is one row, with the latest end:
            // its generation's, so a copy remembers it at least as long.
            try db.statement("SELECT key, MAX(expires) FROM remembered GROUP BY key ORDER BY key").forEach { row in
                let expires = row.int64(1)
                rows.append(
                    RememberedRow(key: row.int64(0), until: expires == RememberedGeneration.forever ? nil : expires))
                return true
            }
            return rows
        }
    }
}
