import FeedModel
import FeedStoreContract
import FoundationEssentials

/// Registered feeds and their polling state (as `FeedStore+Feeds`, in PostgreSQL's SQL).
extension PostgresStore {
    static let feedQuery = "SELECT \(StoreColumns.record(readIsTrue: "read")) FROM feed"

    public func feeds() throws(FeedFailure) -> [FeedRecord] {
        // One statement: a snapshot of its own, no transaction needed.
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> [FeedRecord] in
            var records: [FeedRecord] = []
            for row in try db.execute(Self.feedQuery + " ORDER BY name").rows { records.append(try row.feedRecord()) }
            return records
        }
    }

    public func feed(named name: String) throws(FeedFailure) -> FeedRecord {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> FeedRecord in
            try Self.record(db, name: name)
        }
    }

    public func hasFeed(named name: String) throws(FeedFailure) -> Bool {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> Bool in
            try db.execute("SELECT 1 FROM feed WHERE name = $1", [.text(name)]).count > 0
        }
    }

    public func addFeed(_ feed: FeedRegistration, settings: FeedSettings, replace: Bool) throws(FeedFailure) {
        try transaction { (db: PostgresConnection) throws(FeedFailure) in
            // The row lock of an existing feed, so two machines replacing it take turns.
            let exists = try db.execute("SELECT 1 FROM feed WHERE name = $1 FOR UPDATE", [.text(feed.name)]).count > 0
            if exists {
                guard replace else { throw FeedFailure.usage("feed \(feed.name) exists; use --replace to change it") }
                try db.execute(
                    """
                    UPDATE feed SET url = $1, kind = $2, token_env = $3, expressions = $4, etag = NULL, last_modified = NULL,
                        retry_not_before = NULL, resume_url = NULL, last_error = NULL, last_error_code = NULL WHERE name = $5
                    """,
                    [
                        .text(feed.url), .text(feed.kind.rawValue), PostgresValue(feed.tokenEnv),
                        PostgresValue(feed.expressions.json), .text(feed.name),
                    ])
                if let every = settings.every {
                    try db.execute(
                        "UPDATE feed SET every_seconds = $1::bigint WHERE name = $2",
                        [PostgresValue(every.components.seconds), .text(feed.name)])
                }
                if settings.changesRetention {
                    let retention = settings.retention(over: try Self.record(db, name: feed.name).retention)
                    try db.execute(
                        "UPDATE feed SET keep = $1, remember = $2 WHERE name = $3",
                        [.text(retention.keep.text), .text(retention.remember.text), .text(feed.name)])
                }
                if let title = settings.title {
                    try db.execute("UPDATE feed SET title = $1 WHERE name = $2", [.text(title), .text(feed.name)])
                }
            } else {
                try Self.insert(db, feed, settings, now: Timestamp.format(.now))
            }
            try Self.retireUnusedDefaultFeed(db, adding: [feed.name])
        }
    }

    public func addFeeds(_ feeds: [(feed: FeedRegistration, settings: FeedSettings)]) throws(FeedFailure) {
        try transaction { (db: PostgresConnection) throws(FeedFailure) in
            let now = Timestamp.format(.now)
            for (feed, settings) in feeds { try Self.insert(db, feed, settings, now: now) }
            try Self.retireUnusedDefaultFeed(db, adding: feeds.map(\.feed.name))
        }
    }

    private static func insert(
        _ db: PostgresConnection, _ feed: FeedRegistration, _ settings: FeedSettings, now: String
    ) throws(FeedFailure) {
        let retention = settings.retention(over: Retention.defaults(for: feed.kind))
        try db.execute(
            """
            INSERT INTO feed (name, url, kind, token_env, expressions, created_at, every_seconds, keep, remember, title)
            VALUES ($1, $2, $3, $4, $5, $6, $7::bigint, $8, $9, $10)
            """,
            [
                .text(feed.name), .text(feed.url), .text(feed.kind.rawValue), PostgresValue(feed.tokenEnv),
                PostgresValue(feed.expressions.json), .text(now),
                PostgresValue(settings.every.map { $0.components.seconds }),
                .text(retention.keep.text), .text(retention.remember.text), PostgresValue(settings.title),
            ])
    }

    /// The built-in `posts` goes once a feed of one's own is added, while nobody has used it
    /// (see `FeedStore.addFeed`).
    private static func retireUnusedDefaultFeed(_ db: PostgresConnection, adding names: [String]) throws(FeedFailure) {
        let builtIn = FeedRegistration.defaultFeed
        guard !names.isEmpty, !names.contains(builtIn.name) else { return }
        try db.execute(
            """
            DELETE FROM feed WHERE name = $1 AND url = $2 AND kind = $3 AND last_success_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM entry WHERE entry.feed = feed.name)
            """, [.text(builtIn.name), .text(builtIn.url), .text(builtIn.kind.rawValue)])
    }

    public func setTokenEnv(feed: String, _ variable: String?) throws(FeedFailure) {
        try update(feed: feed, "UPDATE feed SET token_env = $1 WHERE name = $2", [PostgresValue(variable)])
    }

    /// The generation of the feeds' settings (schema v5): it moves when a feed is added,
    /// removed or changed, from any machine, and not when entries are committed.
    public func changeMark() throws(FeedFailure) -> Int64? {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> Int64? in
            try db.execute("SELECT generation FROM feed_generation").firstInteger()
        }
    }

    public func clearLastError(feed: String) throws(FeedFailure) -> FeedRecord {
        try update(feed: feed, "UPDATE feed SET last_error = NULL, last_error_code = NULL WHERE name = $1", [])
        return try self.feed(named: feed)
    }

    public func setSourceTitle(feed: String, _ title: String) throws(FeedFailure) {
        try update(feed: feed, "UPDATE feed SET title = $1 WHERE name = $2", [.text(title)])
    }

    public func setEvery(feed: String, _ every: Duration?) throws(FeedFailure) {
        try update(
            feed: feed, "UPDATE feed SET every_seconds = $1::bigint WHERE name = $2",
            [PostgresValue(every.map { $0.components.seconds })])
    }

    public func setRetention(feed: String, _ retention: Retention) throws(FeedFailure) {
        try update(
            feed: feed, "UPDATE feed SET keep = $1, remember = $2 WHERE name = $3",
            [.text(retention.keep.text), .text(retention.remember.text)])
    }

    public func setExpressions(feed: String, _ expressions: FeedExpressions) throws(FeedFailure) {
        try update(feed: feed, "UPDATE feed SET expressions = $1 WHERE name = $2", [PostgresValue(expressions.json)])
    }

    /// One setting of one feed; 66 (with the nearest names) when there is no such feed.
    private func update(feed: String, _ sql: String, _ values: [PostgresValue]) throws(FeedFailure) {
        try transaction { (db: PostgresConnection) throws(FeedFailure) in
            _ = try Self.record(db, name: feed)
            try db.execute(sql, values + [.text(feed)])
        }
    }

    public func removeFeed(named name: String) throws(FeedFailure) {
        let removed = try withConnection { (db: PostgresConnection) throws(FeedFailure) -> Int in
            try db.execute("DELETE FROM feed WHERE name = $1", [.text(name)]).changed
        }
        if removed == 0 { throw .notFound("no feed named \(name)") }
    }

    public func recordFailure(
        feed: String, _ failure: FeedFailure, at time: Date, retryNotBefore: Date?
    ) throws(FeedFailure) -> FeedRecord {
        try transaction { (db: PostgresConnection) throws(FeedFailure) -> FeedRecord in
            try Self.updateRecord(
                db,
                """
                UPDATE feed SET last_fetch_at = $1, last_error = $2, last_error_code = $3::bigint,
                    retry_not_before = COALESCE($4, retry_not_before) WHERE name = $5
                """,
                [
                    .text(Timestamp.format(time)), .text(failure.description), PostgresValue(Int(failure.exitCode)),
                    PostgresValue(retryNotBefore.map(Timestamp.format)), .text(feed),
                ], name: feed)
        }
    }

    /// One feed's record, or 66 naming the nearest registered names.
    static func record(_ db: PostgresConnection, name: String) throws(FeedFailure) -> FeedRecord {
        let found = try db.execute(feedQuery + " WHERE name = $1", [.text(name)])
        guard found.count == 1 else {
            let names = try db.execute("SELECT name FROM feed ORDER BY name").rows.compactMap { $0.text(0) }
            throw FeedFailure.notFound("no feed named \(name)" + NearestNames.hint(for: name, among: names))
        }
        return try found.row(0).feedRecord()
    }

    /// Runs `update`, an `UPDATE feed … WHERE name = …` of one feed, and returns the record after
    /// it in the same round trip (`RETURNING` the record's columns: its read cursor's subquery
    /// sees what the transaction stored before); 66 when no feed of that name was changed.
    static func updateRecord(_ db: PostgresConnection, _ update: String, _ values: [PostgresValue], name: String)
        throws(FeedFailure) -> FeedRecord
    {
        let updated = try db.execute(update + " RETURNING " + StoreColumns.record(readIsTrue: "read"), values)
        guard updated.count == 1 else { throw FeedFailure.notFound("no feed named \(name)") }
        return try updated.row(0).feedRecord()
    }
}
