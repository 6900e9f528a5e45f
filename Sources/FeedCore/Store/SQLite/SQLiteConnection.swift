import CSQLite
import FeedStoreContract
import FoundationEssentials

/// One SQLite connection and the statements compiled on it.
///
/// Not thread-safe by itself: `SQLiteDatabase` is the only owner, and it uses a connection only
/// while holding its lock. Opened with `SQLITE_OPEN_NOMUTEX` for that reason (SQLite's own mutex
/// would only repeat that lock).
package final class SQLiteConnection {
    package let handle: OpaquePointer
    private var cache: [StatementKey: SQLiteStatement] = [:]
    /// The busy handler's state; SQLite holds an unretained pointer to it, so the connection
    /// keeps it for as long as SQLite may call it.
    private var busyWait: SQLiteBusyWait?
    /// Who checkpoints the journal after this connection's commits; SQLite holds an unretained
    /// pointer to it, as to `busyWait`.
    private(set) var checkpointer: JournalCheckpointer?

    /// Opens `path` (a `file:` URI when `flags` has `SQLITE_OPEN_URI`).
    package init(path: String, flags: Int32) throws(SQLiteError) {
        _ = Self.configured
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, connection: handle)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
    }

    /// SQLite configured once, before its first connection: no memory statistics (a mutex
    /// taken around each of its allocations and frees).
    private static let configured: Int32 = feed_sqlite_no_memory_statistics()

    deinit {
        checkpointer?.stop()
        cache = [:]  // statements are finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    /// Waits up to `limit` on `clock` whenever another connection holds the database (see
    /// `SQLiteBusyWait`).
    package func waitWhileBusy(upTo limit: Duration, clock: FeedLock.WaitingClock) {
        let wait = SQLiteBusyWait(limit: limit, clock: clock)
        busyWait = wait
        sqlite3_busy_handler(
            handle,
            { context, attempt in
                guard let context else { return 0 }
                return Unmanaged<SQLiteBusyWait>.fromOpaque(context).takeUnretainedValue().retry(attempt: attempt)
                    ? 1 : 0
            }, Unmanaged.passUnretained(wait).toOpaque())
    }

    /// Hands the checkpoints that follow this connection's commits to `checkpointer`'s thread
    /// (see `JournalCheckpointer`), in place of SQLite's automatic checkpoint.
    package func checkpointInBackground(_ checkpointer: JournalCheckpointer) {
        self.checkpointer = checkpointer
        sqlite3_wal_hook(
            handle,
            { context, db, name, frames in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<JournalCheckpointer>.fromOpaque(context).takeUnretainedValue()
                if checkpointer.committed(frames: frames) == .checkpointHere {
                    // As SQLite's own automatic checkpoint does, from its hook, once the thread's
                    // checkpoint (which would make this one give up) is done; a failure is met again
                    // at the next commit (the commit itself has happened).
                    checkpointer.waitUntilIdle()
                    _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    /// `sql` compiled once and kept: later calls return the same statement, reset by its next
    /// `bind`. One statement per call site is expected; SQL built per call would fill the cache.
    package func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let key = StatementKey(sql: sql)
        if let cached = cache[key] { return cached }
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(self.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else { throw error(code) }
        let statement = SQLiteStatement(handle: handle, connection: self)
        cache[key] = statement
        return statement
    }

    /// SQLite's `PRAGMA data_version`: changes when another connection (of this process or
    /// another) commits, never for this connection's own commits.
    package func dataVersion() throws -> Int64 {
        guard let version = try statement("PRAGMA data_version").first([], { row in try row.requiredInteger(0) }) else {
            throw SQLiteError(code: SQLITE_ERROR, message: "PRAGMA data_version gave no row")
        }
        return Int64(version)
    }

    /// Runs `sql`, one or more statements without parameters (pragmas, migrations).
    package func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text)
        }
    }

    /// Resets every cached statement, ending any read a stepped statement still holds.
    package func resetStatements() {
        for statement in cache.values { sqlite3_reset(statement.handle) }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a transaction: `IMMEDIATE` takes the write lock at once (so a writer
    /// waits at BEGIN, under the busy timeout, never fails halfway to upgrade); `DEFERRED` reads
    /// one snapshot. Rolled back when `body` throws.
    package func transaction<T>(immediate: Bool, _ body: () throws -> T) throws -> T {
        try statement(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED").run()
        let value: T
        do {
            value = try body()
        } catch {
            // The body's error is the one to report; a failed rollback leaves SQLite to roll the
            // transaction back itself when the connection closes.
            try? statement("ROLLBACK").run()
            throw error
        }
        do {
            try statement("COMMIT").run()
        } catch {
            try? statement("ROLLBACK").run()
            throw error
        }
        return value
    }

    package func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, connection: handle)
    }
}
