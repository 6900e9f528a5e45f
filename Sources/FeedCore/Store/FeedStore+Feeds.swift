import Foundation
import GRDB

/// Registered feeds and their polling state.
extension FeedStore {
    /// Every feed, by name, with counts.
    public func feeds() throws(FeedFailure) -> [FeedRecord] {
        try read { db in try Row.fetchAll(db, sql: Self.feedQuery + " ORDER BY name").map(Self.record) }
    }

    /// One feed and its state, or `.notFound`. Its cost does not grow with the number of
    /// entries (counts are kept by triggers, the read cursor is one index probe).
    public func feed(named name: String) throws(FeedFailure) -> FeedRecord {
        try read { db in try Self.record(db, name: name) }
    }

    /// Registers a feed. An existing name is a usage error unless `replace`; replacing keeps the
    /// entries but forgets validators, retry time and last error (the URL may have changed).
    public func addFeed(_ feed: FeedRegistration, replace: Bool) throws(FeedFailure) {
        try write { db in
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM feed WHERE name = ?", arguments: [feed.name]) ?? false
            if exists {
                guard replace else {
                    throw FeedFailure.usage("feed \(feed.name) exists; use --replace to change it")
                }
                try db.execute(sql: """
                    UPDATE feed SET url = ?, kind = ?, token_env = ?, etag = NULL, last_modified = NULL,
                        retry_not_before = NULL, resume_url = NULL, last_error = NULL, last_error_code = NULL WHERE name = ?
                    """, arguments: [feed.url, feed.kind.rawValue, feed.tokenEnv, feed.name])
            } else {
                try db.execute(
                    sql: "INSERT INTO feed (name, url, kind, token_env, created_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [feed.name, feed.url, feed.kind.rawValue, feed.tokenEnv, Timestamp.format(.now)])
            }
        }
    }

    /// Records a fetch that found nothing new (a 304, a 404 at the next index, only known
    /// entries): the fetch time, and the feed's last error and retry time cleared.
    public func recordSuccess(feed: String, at time: Date) throws(FeedFailure) -> FeedRecord {
        try write { db in
            try db.execute(sql: """
                UPDATE feed SET last_fetch_at = ?1, last_success_at = ?1, last_error = NULL, last_error_code = NULL,
                    retry_not_before = NULL WHERE name = ?2
                """, arguments: [Timestamp.format(time), feed])
            return try Self.record(db, name: feed)
        }
    }

    /// Sets (or, with nil, unsets) how often a plain `sync` fetches the feed.
    public func setEvery(feed: String, _ every: Duration?) throws(FeedFailure) {
        try write { db in
            _ = try Self.record(db, name: feed)
            try db.execute(sql: "UPDATE feed SET every_seconds = ? WHERE name = ?",
                           arguments: [every.map { Int($0.components.seconds) }, feed])
        }
    }

    /// Removes a feed and its entries.
    public func removeFeed(named name: String) throws(FeedFailure) {
        let removed = try write { db in
            try db.execute(sql: "DELETE FROM feed WHERE name = ?", arguments: [name])
            return db.changesCount
        }
        if removed == 0 { throw .notFound("no feed named \(name)") }
    }

    /// Records a failed fetch: the error and, for 429/503, when to try again. Nothing else
    /// changes, so the next run retries from the same place.
    public func recordFailure(
        feed: String, _ failure: FeedFailure, at time: Date, retryNotBefore: Date?
    ) throws(FeedFailure) -> FeedRecord {
        try write { db in
            try db.execute(sql: """
                UPDATE feed SET last_fetch_at = ?, last_error = ?, last_error_code = ?,
                    retry_not_before = COALESCE(?, retry_not_before) WHERE name = ?
                """, arguments: [Timestamp.format(time), failure.description, failure.exitCode,
                                 retryNotBefore.map(Timestamp.format), feed])
            return try Self.record(db, name: feed)
        }
    }

    private static let feedQuery = """
        SELECT feed.*,
            (SELECT id FROM entry WHERE entry.feed = feed.name AND read = 1 ORDER BY seq DESC LIMIT 1) AS last_read_id
        FROM feed
        """

    static func record(_ db: Database, name: String) throws -> FeedRecord {
        guard let record = try Row.fetchOne(db, sql: feedQuery + " WHERE name = ?", arguments: [name]).map(record) else {
            throw FeedFailure.notFound("no feed named \(name)")
        }
        return record
    }

    private static func record(_ row: Row) throws -> FeedRecord {
        let kindName: String = row["kind"]
        guard let kind = FeedKind(rawValue: kindName) else {
            throw FeedFailure.storeAccess("feed \(row["name"] as String) has an unknown kind \(kindName)")
        }
        return FeedRecord(
            registration: FeedRegistration(name: row["name"], url: row["url"], kind: kind, tokenEnv: row["token_env"]),
            nextIndex: row["next_index"],
            validators: Validators(etag: row["etag"], lastModified: row["last_modified"]),
            retryNotBefore: (row["retry_not_before"] as String?).flatMap(Timestamp.parse), resumeURL: row["resume_url"],
            lastFetchAt: (row["last_fetch_at"] as String?).flatMap(Timestamp.parse),
            lastSuccessAt: (row["last_success_at"] as String?).flatMap(Timestamp.parse),
            every: (row["every_seconds"] as Int?).map { .seconds($0) },
            lastError: row["last_error"], lastErrorCode: row["last_error_code"],
            total: row["entry_count"], unread: row["unread_count"], lastReadID: text(row, "last_read_id"))
    }
}
