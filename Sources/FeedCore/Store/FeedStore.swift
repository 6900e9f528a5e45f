import CSQLite
import Foundation
import GRDB

/// The SQLite store behind every command: feeds, their polling state, and their entries.
///
/// Guarantees:
/// - Every change is one transaction, so a run killed at any moment leaves a store that opens and
///   holds everything committed before the kill (WAL journal).
/// - The file and its folder are created readable by the owner only.
/// - A file that is not a feedcli store is refused (74) and never written to.
/// - A store opened `.readOnly` is never written (no migration, no journal set-up), so `list`,
///   `show` and `status` work on a read-only file or mount.
/// - Writers from several processes wait for each other up to `wait` (SQLite's busy timeout);
///   runs that must not interleave on one feed take `lock(feed:)` as well. Locks are keyed by
///   the store's resolved path, so a store reached through a symlink shares its locks.
///
/// Thread contract: calls block while SQLite works or waits; call from a thread that may block.
public final class FeedStore: Sendable {
    public enum Access: Sendable {
        /// Commands that change the store (`next`, `sync`, `feeds add`, …).
        case readWrite
        /// Commands that only read (`list`, `show`, `status`); a missing store is still created.
        case readOnly
    }

    /// The path as given (for messages).
    public let path: String
    /// The path with symlinks resolved: what SQLite opens and what locks are keyed by.
    let resolvedPath: String
    let database: DatabaseQueue
    private let wait: Duration

    private init(path: String, resolvedPath: String, database: DatabaseQueue, wait: Duration) {
        self.path = path
        self.resolvedPath = resolvedPath
        self.database = database
        self.wait = wait
    }

    /// Opens the store at `path`, creating it (and its folder) when missing and migrating it to
    /// the current schema.
    public static func open(at path: String, wait: Duration = .seconds(30), access: Access = .readWrite) throws(FeedFailure) -> FeedStore {
        _ = enableURIs
        let folder = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .storeAccess("\(path) is a directory, not a feedcli store")
        }
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .storeCreate("\(folder): \(Excerpt.of(error.localizedDescription, limit: 200))")
            }
        }
        let header = try StoreFile.checkIsFeedcliStore(path)
        var access = access
        if header == nil {
            let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .storeCreate("\(path): \(String(cString: strerror(errno)))") }
            close(descriptor)
            access = .readWrite  // a new store is set up by this run
        }
        let resolvedPath = StoreFile.resolve(path)
        let isWritable = StoreFile.isWritable(resolvedPath)
        if access == .readWrite, !isWritable { throw .storeAccess("the store is read-only: \(path)") }

        var configuration = Configuration()
        configuration.journalMode = .default
        configuration.busyMode = .timeout(TimeInterval(wait.components.seconds) + 0.001)
        configuration.label = "feedcli"
        // A reader of a writable store opens it normally and simply never writes: a read-only
        // SQLite connection cannot create the WAL files it needs.
        configuration.readonly = access == .readOnly && !isWritable
        configuration.prepareDatabase { db in
            // In WAL mode, NORMAL syncs at checkpoints instead of at every commit: a killed process
            // still keeps every committed transaction and the file never corrupts; only a power
            // loss may roll back the last commits. Polling cron runs need no more.
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // Automatic checkpoints keep the journal short; one at every close would cost
                // each short run (a `next`) a checkpoint and an fsync.
                if let connection = db.sqliteConnection { _ = feed_sqlite_no_checkpoint_on_close(connection) }
            }
        }
        // A read-only store with nothing in its journal is read as immutable: SQLite then needs
        // no shared-memory file, which it could not create (read-only mount) or would leave
        // behind with the store's read-only mode. With a journal, SQLite reads it if it can, and
        // otherwise the store is read as of its last checkpoint.
        let database: DatabaseQueue
        do {
            if configuration.readonly, StoreFile.hasJournal(resolvedPath),
               let journaled = try? DatabaseQueue(path: resolvedPath, configuration: configuration),
               (try? journaled.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }) != nil {
                database = journaled
            } else if configuration.readonly {
                database = try DatabaseQueue(path: "file:\(StoreFile.uriEscaped(resolvedPath))?immutable=1",
                                             configuration: configuration)
            } else {
                database = try DatabaseQueue(path: resolvedPath, configuration: configuration)
            }
        } catch {
            throw StoreFile.failure(error, path: path)
        }
        let store = FeedStore(path: path, resolvedPath: resolvedPath, database: database, wait: wait)
        try store.prepare(access: access, isWAL: header?.isWAL ?? false)
        return store
    }

    /// `file:` URIs (for immutable opens), before SQLite initializes.
    private static let enableURIs: Int32 = feed_sqlite_enable_uri()

    /// Migrates to the current schema and makes the journal WAL, once, when the store needs it.
    private func prepare(access: Access, isWAL: Bool) throws(FeedFailure) {
        let migrator = StoreSchema.migrator
        let isCurrent = try read { db in try migrator.hasCompletedMigrations(db) }
        if isCurrent && isWAL { return }
        guard access == .readWrite else {
            if isCurrent { return }
            throw .storeAccess("\(path) needs an upgrade to this feedcli's schema, which a read-only open cannot do")
        }
        // First runs racing each other (cron and a person) migrate one at a time.
        let lock = try FeedLock.acquire(path: lockPath(for: "store"), wait: wait, holder: "the state store")
        do {
            // WAL mode is persistent: set once here, not on every open.
            if !isWAL { try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") } }
            try migrator.migrate(database)
        } catch {
            throw .storeAccess("\(path): migration failed: \(StoreFile.describe(error))")
        }
        _ = lock
    }

    /// Serializes runs on one feed across processes (see `FeedLock`). Feed names are encoded in
    /// the lock file's name, so no name can reach outside the locks folder.
    public func lock(feedNamed feed: String) throws(FeedFailure) -> FeedLock {
        try FeedLock.acquire(path: lockPath(for: "feed-" + StoreFile.fileNameSafe(feed)), wait: wait, holder: "feed \(feed)")
    }

    /// The feed's lock if no other run holds it, without waiting; nil when one does.
    public func attemptLock(feedNamed feed: String) throws(FeedFailure) -> FeedLock? {
        try FeedLock.attempt(path: lockPath(for: "feed-" + StoreFile.fileNameSafe(feed)))
    }

    private func lockPath(for name: String) -> String {
        resolvedPath + ".locks/" + name + ".lock"
    }

    /// Runs `body` in a read transaction (one snapshot, however many statements).
    ///
    /// Not GRDB's `read`: it guards its body with `PRAGMA query_only`, and SQLite expires every
    /// prepared statement of the connection whenever a flag pragma changes, so every statement
    /// cached with `cachedStatement` would be compiled again after each read (that was a third of
    /// a sync of 1,000 idle feeds). What `query_only` enforced, that reads do not write, holds by
    /// construction: the bodies given here only select.
    func read<T>(_ body: (Database) throws -> T) throws(FeedFailure) -> T {
        do {
            return try database.unsafeRead { db in
                try db.beginTransaction(.deferred)
                let value: T
                do {
                    value = try body(db)
                } catch {
                    // The body's error is the one to report; a read transaction has nothing to undo.
                    try? db.rollback()
                    throw error
                }
                try db.commit()
                return value
            }
        } catch {
            throw StoreFile.failure(error, path: path)
        }
    }

    /// Runs `body`, whose statements each stand alone, outside any transaction: SQLite makes each
    /// statement atomic by itself, and a BEGIN and COMMIT would cost as much as the statement.
    /// For one-statement reads, and for writes whose one change needs no companion.
    func statements<T>(_ body: (Database) throws -> T) throws(FeedFailure) -> T {
        do {
            return try database.writeWithoutTransaction(body)
        } catch {
            throw StoreFile.failure(error, path: path)
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(FeedFailure) -> T {
        do {
            return try database.write(body)
        } catch {
            throw StoreFile.failure(error, path: path)
        }
    }
}
