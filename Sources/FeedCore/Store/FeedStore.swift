import Foundation
import GRDB

/// The SQLite store behind every command: feeds, their polling state, and their entries.
///
/// Guarantees:
/// - Every change is one transaction, so a run killed at any moment leaves a store that opens and
///   holds everything committed before the kill (WAL journal).
/// - The file and its folder are created readable by the owner only.
/// - A file that is not a feedcli store is refused (74) and never written to.
/// - Writers from several processes wait for each other up to `wait` (SQLite's busy timeout);
///   runs that must not interleave on one feed take `lock(feed:)` as well.
///
/// Thread contract: calls block while SQLite works or waits; call from a thread that may block.
public final class FeedStore: Sendable {
    public let path: String
    let database: DatabaseQueue
    private let wait: Duration

    private init(path: String, database: DatabaseQueue, wait: Duration) {
        self.path = path
        self.database = database
        self.wait = wait
    }

    /// Opens the store at `path`, creating it (and its folder) when missing and migrating it to
    /// the current schema.
    public static func open(at path: String, wait: Duration = .seconds(30)) throws(FeedFailure) -> FeedStore {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let manager = FileManager.default
        if !manager.fileExists(atPath: folder) {
            do {
                try manager.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .storeCreate("\(folder): \(error.localizedDescription)")
            }
        }
        try checkIsFeedcliStore(path)
        if !manager.fileExists(atPath: path) {
            let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .storeCreate("\(path): \(String(cString: strerror(errno)))") }
            close(descriptor)
        }

        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(TimeInterval(wait.components.seconds) + 0.001)
        configuration.label = "feedcli"
        configuration.prepareDatabase { db in
            // In WAL mode, NORMAL syncs at checkpoints instead of at every commit: a killed process
            // still keeps every committed transaction and the file never corrupts; only a power
            // loss may roll back the last commits. Polling cron runs need no more, and sync of
            // an indexed feed commits once per window of requests.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .storeAccess("\(path): \(error)")
        }
        let store = FeedStore(path: path, database: database, wait: wait)
        try store.migrate()
        return store
    }

    /// Refuses a non-empty file that is not SQLite, or a SQLite database of another application,
    /// reading only (the file is left untouched).
    private static func checkIsFeedcliStore(_ path: String) throws(FeedFailure) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw .storeAccess("\(path): cannot be read") }
            return
        }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        try? handle.close()
        guard !header.isEmpty else { return }
        guard header.count >= 72, header.prefix(16) == Data("SQLite format 3\0".utf8) else {
            throw .storeAccess("\(path) is not a feedcli store (not a SQLite database); left untouched")
        }
        // The header stores application_id big-endian at offset 68; 0 means a database that was
        // just being created by another feedcli run (or an empty one).
        let id = header[68..<72].reduce(Int32(0)) { $0 << 8 | Int32($1) }
        let pageCount = header[28..<32].reduce(0) { $0 << 8 | Int($1) }
        if id != StoreSchema.applicationID, !(id == 0 && pageCount <= 1) {
            throw .storeAccess("\(path) is not a feedcli store (another application's database); left untouched")
        }
    }

    private func migrate() throws(FeedFailure) {
        let migrator = StoreSchema.migrator
        let isCurrent = try read { db in try migrator.hasCompletedMigrations(db) }
        guard !isCurrent else { return }
        // First runs racing each other (cron and a person) migrate one at a time.
        let lock = try FeedLock.acquire(path: lockPath(for: "store"), wait: wait, holder: "the state store")
        do {
            try migrator.migrate(database)
        } catch {
            throw .storeAccess("\(path): migration failed: \(error)")
        }
        _ = lock
    }

    /// Serializes runs on one feed across processes (see `FeedLock`).
    public func lock(feed: String) throws(FeedFailure) -> FeedLock {
        try FeedLock.acquire(path: lockPath(for: "feed-" + feed), wait: wait, holder: "feed \(feed)")
    }

    private func lockPath(for name: String) -> String {
        let folder = path + ".locks"
        if !FileManager.default.fileExists(atPath: folder) {
            try? FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return folder + "/" + name + ".lock"
    }

    func read<T>(_ body: (Database) throws -> T) throws(FeedFailure) -> T {
        do {
            return try database.read(body)
        } catch let failure as FeedFailure {
            throw failure
        } catch {
            throw .storeAccess("\(path): \(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(FeedFailure) -> T {
        do {
            return try database.write(body)
        } catch let failure as FeedFailure {
            throw failure
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            throw .temporary("\(path) is busy in another feedcli run")
        } catch {
            throw .storeAccess("\(path): \(error)")
        }
    }
}
