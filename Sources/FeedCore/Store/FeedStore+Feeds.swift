import CSQLite
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
        try statements { db in try Self.record(db, name: name) }
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
            try Self.updateRecord(db, """
                UPDATE feed SET last_fetch_at = ?, last_error = ?, last_error_code = ?,
                    retry_not_before = COALESCE(?, retry_not_before) WHERE name = ?
                """, arguments: [Timestamp.format(time), failure.description, failure.exitCode,
                                 retryNotBefore.map(Timestamp.format), feed], name: feed)
        }
    }

    /// The columns a record is read from, in the order `record(_:)` reads them by position (a
    /// name lookup per column costs more than the query itself when a sync touches 1,000 feeds).
    private static let recordColumns = """
        name, url, kind, token_env, next_index, etag, last_modified, retry_not_before, resume_url,
            last_fetch_at, last_success_at, every_seconds, last_error, last_error_code, entry_count, unread_count,
            (SELECT id FROM entry WHERE entry.feed = feed.name AND read = 1 ORDER BY seq DESC LIMIT 1) AS last_read_id
        """
    private static let feedQuery = "SELECT \(recordColumns) FROM feed"

    /// One feed's record, read through a statement compiled once per connection (a sync of many
    /// feeds reads one record per feed, and compiling costs more than running).
    static func record(_ db: Database, name: String) throws -> FeedRecord {
        try onlyRecord(of: db.cachedStatement(sql: feedQuery + " WHERE name = ?"), arguments: [name], name: name)
    }

    /// How often SQLite has compiled the cached record query again since it was first compiled
    /// (`SQLITE_STMTSTATUS_REPREPARE`): a test holds the store to its statement cache with it.
    func recordQueryRecompilations() throws(FeedFailure) -> Int32 {
        try statements { db in
            sqlite3_stmt_status(try db.cachedStatement(sql: Self.feedQuery + " WHERE name = ?").sqliteStatement,
                                SQLITE_STMTSTATUS_REPREPARE, 0)
        }
    }

    /// Runs `update`, an `UPDATE feed … WHERE name = ?` of one feed, and returns the feed's record
    /// after it, read by the same statement (`RETURNING`): half the statements of an update
    /// followed by a read, for the write every fetch ends with.
    static func updateRecord(_ db: Database, _ update: String, arguments: StatementArguments, name: String) throws -> FeedRecord {
        try onlyRecord(of: db.cachedStatement(sql: update + " RETURNING " + recordColumns), arguments: arguments, name: name)
    }

    /// The one feed record `statement` yields (names are unique), or `.notFound`. The row is read
    /// in place through a cursor (`fetchOne` would copy every column into a new row first), and
    /// only while the cursor lives; the statement is then stepped to its end, so that an
    /// autocommit `UPDATE … RETURNING` has plainly committed when this returns.
    private static func onlyRecord(of statement: Statement, arguments: StatementArguments, name: String) throws -> FeedRecord {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        guard let row = try rows.next() else { throw FeedFailure.notFound("no feed named \(name)") }
        let found = try withExtendedLifetime(rows) { try record(row) }
        while try rows.next() != nil {}
        return found
    }

    private static func record(_ row: Row) throws -> FeedRecord {
        // Every column through `fromDatabaseValue`, which answers nil where GRDB's subscript would
        // trap: a hand-edited or damaged store is a failure of the store (74), never a crash.
        func value<T: DatabaseValueConvertible>(_ index: Int) throws -> T? {
            let stored: DatabaseValue = row[index]
            if stored.isNull { return nil }
            guard let value = T.fromDatabaseValue(stored) else {
                throw FeedFailure.storeAccess("a feed's column \(Array(row.columnNames)[index]) "
                                              + "holds \(stored), not a \(T.self): the store is damaged")
            }
            return value
        }
        func required<T: DatabaseValueConvertible>(_ index: Int) throws -> T {
            guard let value: T = try value(index) else {
                throw FeedFailure.storeAccess("a feed has no \(Array(row.columnNames)[index]): the store is damaged")
            }
            return value
        }
        let name: String = try required(0), kindName: String = try required(2)
        guard let kind = FeedKind(rawValue: kindName) else {
            throw FeedFailure.storeAccess("feed \(name) has an unknown kind \(kindName)")
        }
        return FeedRecord(
            registration: FeedRegistration(name: name, url: try required(1), kind: kind, tokenEnv: try value(3)),
            nextIndex: try required(4),
            validators: Validators(etag: try value(5), lastModified: try value(6)),
            retryNotBefore: (try value(7) as String?).flatMap(Timestamp.parse), resumeURL: try value(8),
            lastFetchAt: (try value(9) as String?).flatMap(Timestamp.parse),
            lastSuccessAt: (try value(10) as String?).flatMap(Timestamp.parse),
            every: (try value(11) as Int?).map { .seconds($0) },
            lastError: try value(12), lastErrorCode: try value(13),
            total: try required(14), unread: try required(15), lastReadID: text(row, 16))
    }
}
