import CSQLite
import FeedModel
import FeedStoreContract
import FoundationEssentials
import Glibc

/// Registered feeds and their polling state.
extension FeedStore {
    /// Every feed, by name, with counts.
    public func feeds() throws(FeedFailure) -> [FeedRecord] {
        try read { db in
            var records: [FeedRecord] = []
            try db.statement(Self.feedsInOrderQuery).forEach { row in
                records.append(try Self.record(row))
                return true
            }
            return records
        }
    }

    /// Every feed, by name, with the store's version read in the same snapshot (see `ListedFeed`).
    public func listedFeeds() throws(FeedFailure) -> [ListedFeed] {
        try read { db in
            let version = try db.dataVersion()
            var listed: [ListedFeed] = []
            try db.statement(Self.feedsInOrderQuery).forEach { row in
                listed.append(ListedFeed(record: try Self.record(row), version: version))
                return true
            }
            return listed
        }
    }

    /// The listed record while no other connection committed since the listing (SQLite's data
    /// version counts only other connections' commits; this run's own commits touch only the
    /// feeds it holds, one at a time), else the record read again.
    public func feed(_ listed: ListedFeed) throws(FeedFailure) -> FeedRecord {
        try statements { db in
            if let version = listed.version, try db.dataVersion() == version { return listed.record }
            return try Self.record(db, name: listed.record.name)
        }
    }

    /// SQLite's `PRAGMA data_version` of this store's connection: it changes with every commit
    /// of another connection, and with none of this one's.
    public func changeMark() throws(FeedFailure) -> Int64? {
        try statements { db in try db.dataVersion() }
    }

    /// One feed and its state, or `.notFound`. Its cost does not grow with the number of
    /// entries (counts are kept by triggers, the read cursor is one index probe).
    public func feed(named name: String) throws(FeedFailure) -> FeedRecord {
        try statements { db in try Self.record(db, name: name) }
    }

    /// Whether a feed of that name is registered.
    public func hasFeed(named name: String) throws(FeedFailure) -> Bool {
        try statements { db in
            try db.statement("SELECT 1 FROM feed WHERE name = ?").first([.text(name)]) { _ in true } ?? false
        }
    }

    /// Registers a feed with its settings, in one transaction. An existing name is a usage error
    /// unless `replace`; replacing keeps the entries and the settings not given, but forgets
    /// validators, retry time and last error (the URL may have changed). A first feed of one's
    /// own retires the built-in `posts` while it is unused (see `retireUnusedDefaultFeed`),
    /// silently: nobody used it.
    public func addFeed(_ feed: FeedRegistration, settings: FeedSettings, replace: Bool) throws(FeedFailure) {
        try write { db in
            let exists =
                try db.statement("SELECT 1 FROM feed WHERE name = ?").first([.text(feed.name)]) { _ in true } ?? false
            if exists {
                guard replace else {
                    throw FeedFailure.usage("feed \(feed.name) exists; use --replace to change it")
                }
                try db.statement(
                    """
                    UPDATE feed SET url = ?, kind = ?, token_env = ?, expressions = ?, etag = NULL, last_modified = NULL,
                        retry_not_before = NULL, resume_url = NULL, last_error = NULL, last_error_code = NULL WHERE name = ?
                    """
                ).run([
                    .text(feed.url), .text(feed.kind.rawValue), SQLiteValue(feed.tokenEnv),
                    SQLiteValue(feed.expressions.json), .text(feed.name),
                ])
                if let every = settings.every {
                    try db.statement("UPDATE feed SET every_seconds = ? WHERE name = ?").run([
                        .integer(Int64(every.components.seconds)), .text(feed.name),
                    ])
                }
                if settings.changesRetention {
                    let retention = settings.retention(over: try Self.record(db, name: feed.name).retention)
                    try db.statement("UPDATE feed SET keep = ?, remember = ? WHERE name = ?")
                        .run([.text(retention.keep.text), .text(retention.remember.text), .text(feed.name)])
                }
                if let title = settings.title {
                    try db.statement("UPDATE feed SET title = ? WHERE name = ?").run([.text(title), .text(feed.name)])
                }
            } else {
                try Self.insert(db, feed, settings, now: Timestamp.format(.now))
            }
            try Self.retireUnusedDefaultFeed(db, adding: [feed.name])
        }
    }

    /// A new feed's row, with `settings` over its kind's defaults.
    private static func insert(_ db: SQLiteConnection, _ feed: FeedRegistration, _ settings: FeedSettings, now: String)
        throws
    {
        let retention = settings.retention(over: Retention.defaults(for: feed.kind))
        try db.statement(
            """
            INSERT INTO feed (name, url, kind, token_env, expressions, created_at, every_seconds, keep, remember, title)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ).run([
            .text(feed.name), .text(feed.url), .text(feed.kind.rawValue), SQLiteValue(feed.tokenEnv),
            SQLiteValue(feed.expressions.json), .text(now),
            SQLiteValue(settings.every.map { Int64($0.components.seconds) }),
            .text(retention.keep.text), .text(retention.remember.text), SQLiteValue(settings.title),
        ])
    }

    /// The built-in `posts` is there so that a bare `feedcli next` works on a new machine; it is
    /// not the user's. Once they add a feed of their own, it goes, in the same transaction, while
    /// nobody has used it: never fetched successfully and holding no entry (a used one stays until
    /// `feeds rm posts`). So cron never polls a feed nobody asked for.
    private static func retireUnusedDefaultFeed(_ db: SQLiteConnection, adding names: [String]) throws {
        let builtIn = FeedRegistration.defaultFeed
        guard !names.isEmpty, !names.contains(builtIn.name) else { return }
        try db.statement(
            """
            DELETE FROM feed WHERE name = ? AND url = ? AND kind = ? AND last_success_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM entry WHERE entry.feed = feed.name)
            """
        ).run([.text(builtIn.name), .text(builtIn.url), .text(builtIn.kind.rawValue)])
    }

    /// Registers new feeds (none of their names may exist), each with its settings, in one
    /// transaction: `feeds import` of thousands of outlines. Retires an unused built-in `posts`
    /// as `addFeed` does.
    public func addFeeds(_ feeds: [(feed: FeedRegistration, settings: FeedSettings)]) throws(FeedFailure) {
        try write { db in
            let now = Timestamp.format(.now)
            for (feed, settings) in feeds { try Self.insert(db, feed, settings, now: now) }
            try Self.retireUnusedDefaultFeed(db, adding: feeds.map(\.feed.name))
        }
    }

    /// Sets what a feed keeps and how long it remembers what it let go (`feeds set --keep
    /// --remember`); the next commit prunes by it.
    public func setRetention(feed: String, _ retention: Retention) throws(FeedFailure) {
        try write { db in
            _ = try Self.record(db, name: feed)
            try db.statement("UPDATE feed SET keep = ?, remember = ? WHERE name = ?")
                .run([.text(retention.keep.text), .text(retention.remember.text), .text(feed)])
        }
    }

    /// Sets (or, with nil, unsets) the environment variable a feed's token comes from.
    public func setTokenEnv(feed: String, _ variable: String?) throws(FeedFailure) {
        try write { db in
            _ = try Self.record(db, name: feed)
            try db.statement("UPDATE feed SET token_env = ? WHERE name = ?").run([SQLiteValue(variable), .text(feed)])
        }
    }

    public func clearLastError(feed: String) throws(FeedFailure) -> FeedRecord {
        try write { db in
            try Self.updateRecord(
                db, "UPDATE feed SET last_error = NULL, last_error_code = NULL WHERE name = ?",
                arguments: [.text(feed)],
                name: feed)
        }
    }

    public func setSourceTitle(feed: String, _ title: String) throws(FeedFailure) {
        try statements { db in
            try db.statement("UPDATE feed SET title = ? WHERE name = ?").run([.text(title), .text(feed)])
        }
    }

    /// Sets (or, with nil, unsets) how often a plain `sync` fetches the feed.
    public func setEvery(feed: String, _ every: Duration?) throws(FeedFailure) {
        try write { db in
            _ = try Self.record(db, name: feed)
            try db.statement("UPDATE feed SET every_seconds = ? WHERE name = ?")
                .run([SQLiteValue(every.map { Int64($0.components.seconds) }), .text(feed)])
        }
    }

    /// Replaces a feed's jq expressions (`feeds set`); entries, read state and cursors are kept.
    public func setExpressions(feed: String, _ expressions: FeedExpressions) throws(FeedFailure) {
        try write { db in
            _ = try Self.record(db, name: feed)
            try db.statement("UPDATE feed SET expressions = ? WHERE name = ?")
                .run([SQLiteValue(expressions.json), .text(feed)])
        }
    }

    /// Removes a feed and its entries.
    public func removeFeed(named name: String) throws(FeedFailure) {
        let removed = try write { db in
            try SearchIndex.removeFeed(db, name)
            try db.statement("DELETE FROM feed WHERE name = ?").run([.text(name)])
            return db.changes
        }
        if removed == 0 { throw .notFound("no feed named \(name)") }
    }

    /// Records a failed fetch: the error and, for 429/503, when to try again. Nothing else
    /// changes, so the next run retries from the same place.
    public func recordFailure(
        feed: String, _ failure: FeedFailure, at time: Date, retryNotBefore: Date?
    ) throws(FeedFailure) -> FeedRecord {
        try write { db in
            try Self.updateRecord(
                db,
                """
                UPDATE feed SET last_fetch_at = ?, last_error = ?, last_error_code = ?,
                    retry_not_before = COALESCE(?, retry_not_before) WHERE name = ?
                """,
                arguments: [
                    .text(Timestamp.format(time)), .text(failure.description), SQLiteValue(failure.exitCode),
                    SQLiteValue(retryNotBefore.map(Timestamp.format)), .text(feed),
                ], name: feed)
        }
    }

    private static let feedQuery = "SELECT \(StoreColumns.record(readIsTrue: "read = 1")) FROM feed"
    /// Built once: a statement's SQL built at each call costs its allocation and copy, and a
    /// look-up of the statement cache that cannot recognise it by its storage.
    private static let feedsInOrderQuery = feedQuery + " ORDER BY name"
    private static let feedByNameQuery = feedQuery + " WHERE name = ?"

    /// One feed's record, through a statement compiled once per connection (a sync of many feeds
    /// reads one record per feed, and compiling costs more than running).
    package static func record(_ db: SQLiteConnection, name: String) throws -> FeedRecord {
        guard let record = try db.statement(feedByNameQuery).first([.text(name)], record) else {
            var names: [String] = []
            try db.statement("SELECT name FROM feed ORDER BY name").forEach { row in
                names.append(row.text(0) ?? "")
                return true
            }
            throw FeedFailure.notFound("no feed named \(name)" + NearestNames.hint(for: name, among: names))
        }
        return record
    }

    /// How often SQLite has compiled the cached record query again since it was first compiled
    /// (`SQLITE_STMTSTATUS_REPREPARE`): a test holds the store to its statement cache with it.
    package func recordQueryRecompilations() throws(FeedFailure) -> Int32 {
        try statements { db in
            sqlite3_stmt_status(try db.statement(Self.feedByNameQuery).handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        }
    }

    /// Runs `update`, an `UPDATE feed … WHERE name = ?` of one feed, and returns the feed's record
    /// after it, read by the cached record query. Not `RETURNING`: SQLite builds a temporary
    /// table for every statement that returns rows it changed, a third of this write's cost.
    package static func updateRecord(_ db: SQLiteConnection, _ update: String, arguments: [SQLiteValue], name: String)
        throws -> FeedRecord
    {
        let statement = try db.statement(update)
        try statement.run(arguments)
        guard sqlite3_changes(db.handle) > 0,
            let record = try db.statement(feedByNameQuery).first([.text(name)], record)
        else {
            throw FeedFailure.notFound("no feed named \(name)")
        }
        return record
    }

    private static func record(_ row: SQLiteRow) throws -> FeedRecord {
        try row.feedRecord()
    }
}
