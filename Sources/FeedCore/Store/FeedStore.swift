import CSQLite
import FeedBase
import FeedModel
import FeedStoreContract
import FoundationEssentials
import Glibc

/// The store in a SQLite file, for one machine (`PostgresStore` is the one several share): feeds,
/// their polling state, and their entries.
///
/// Guarantees:
/// - Every change is one transaction, so a run killed at any moment leaves a store that opens and
///   holds everything committed before the kill (WAL journal).
/// - The file and its folder are created readable by the owner only.
/// - A file that is not a feedcli store is refused (74) and never written to.
/// - A store opened `.readOnly` is never written (no journal set-up), so `list`, `show` and
///   `status` work on a read-only file or mount; only a store of an older schema is upgraded,
///   when its file can be written (as `next` would), so reading first after an upgrade works.
/// - Writers from several processes wait for each other up to `wait` (SQLite's busy timeout);
///   runs that must not interleave on one feed take `lock(feed:)` as well. Locks are keyed by
///   the store's resolved path, so a store reached through a symlink shares its locks.
///
/// Thread contract: calls block while SQLite works or waits; call from a thread that may block.
public final class FeedStore: Sendable {
    public typealias Access = StoreAccess

    /// The path as given (for messages).
    public let path: String
    /// The path with symlinks resolved: what SQLite opens and what locks are keyed by.
    package let resolvedPath: String
    package let database: SQLiteDatabase
    private let wait: Duration
    /// What waiting (`wait`, for SQLite and for lock files) reads and sleeps on.
    private let clock: FeedLock.WaitingClock
    /// Whether this connection may write, and so bounds the journal when it closes.
    let writes: Bool
    /// What retention learned, so that commits with nothing to prune ask nothing.
    let retentionMemo = RetentionMemo()
    /// The keys of the remembered ids, as far as this store added or last read them.
    let rememberedFilter = RememberedFilter()
    /// The feeds this process owns (`attemptOwnership`): their owner is no other run.
    let ownedFeeds = Locked<Set<String>>([])
    /// The owners' lock files as last listed, and when (`ownerElsewhere`).
    private let listedOwners = Locked<(at: ContinuousClock.Instant, names: Set<String>)?>(nil)

    private init(
        path: String, resolvedPath: String, database: SQLiteDatabase, wait: Duration,
        clock: FeedLock.WaitingClock = .live,
        writes: Bool
    ) {
        self.path = path
        self.resolvedPath = resolvedPath
        self.database = database
        self.wait = wait
        self.clock = clock
        self.writes = writes
    }

    deinit { boundJournal() }

    /// Cuts back a journal that has grown past its bound (see `StoreJournal`). A command calls it
    /// when it is done with the store (a reactor's run may leave references to the store behind
    /// until the process exits); closing calls it too. Costs one `stat` when the journal is short.
    public func boundJournal() {
        guard writes else { return }
        _ = try? database.withConnection { db in StoreJournal.bound(db, storeAt: resolvedPath) }
    }

    /// Opens the store at `path`, creating it (and its folder) when missing and migrating it to
    /// the current schema.
    /// `notice`: the one line a store converted to give space back says (stderr, for a command).
    public static func open(
        at path: String, wait: Duration = .seconds(30), access: Access = .readWrite,
        clock: FeedLock.WaitingClock = .live,
        notice: (String) -> Void = { _ in }
    ) throws(FeedFailure) -> FeedStore {
        let folder = StoreFile.folder(of: path)
        var isDirectory = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory {
            throw .storeAccess("\(path) is a directory, not a feedcli store")
        }
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .storeCreate("\(folder): \(Excerpt.of("\(error)", limit: 200))")
            }
        }
        let header = try StoreFile.checkIsFeedcliStore(path)
        var access = access
        if header == nil {
            let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .storeCreate("\(path): \(String(cString: strerror(errno)))") }
            close(descriptor)
            access = .readWrite  // a new store is set up by this run
        }
        let resolvedPath = StoreFile.resolve(path)
        let isWritable = StoreFile.isWritable(resolvedPath)
        if access == .readWrite, !isWritable { throw .storeAccess("the store is read-only: \(path)") }

        // A reader of a writable store opens it normally and simply never writes: a read-only
        // SQLite connection cannot create the WAL files it needs.
        let readonly = access == .readOnly && !isWritable
        // A read-only store with nothing in its journal is read as immutable: SQLite then needs
        // no shared-memory file, which it could not create (read-only mount) or would leave
        // behind with the store's read-only mode. With a journal, SQLite reads it if it can, and
        // otherwise the store is read as of its last checkpoint.
        let connection: SQLiteConnection
        do {
            if readonly, StoreFile.hasJournal(resolvedPath),
                let journaled = try? connect(
                    resolvedPath, flags: SQLITE_OPEN_READONLY, wait: wait, clock: clock, writes: false),
                (try? journaled.execute("SELECT COUNT(*) FROM sqlite_master")) != nil
            {
                connection = journaled
            } else if readonly {
                connection = try connect(
                    "file:\(StoreFile.uriEscaped(resolvedPath))?immutable=1",
                    flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, wait: wait, clock: clock, writes: false)
            } else {
                connection = try connect(
                    resolvedPath, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, wait: wait, clock: clock,
                    writes: true)
            }
        } catch {
            throw StoreFile.failure(error, path: path)
        }
        let store = FeedStore(
            path: path, resolvedPath: resolvedPath, database: SQLiteDatabase(connection), wait: wait,
            clock: clock, writes: !readonly)
        try store.prepare(access: access, isWAL: header?.isWAL ?? false, notice: notice)
        return store
    }

    /// A new store in memory (the built-in `posts` feed, no entry), standing for the missing
    /// store at `path`: what a command that only reads shows when nothing has been stored yet,
    /// without creating a file or folder there (a mistyped `--state` must not leave an empty
    /// store behind).
    public static func empty(standingFor path: String) throws(FeedFailure) -> FeedStore {
        let store: FeedStore
        do {
            let connection = try connect(
                ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, wait: .zero, clock: .live, writes: false)
            // As a new store is: the built-in `posts` feed is there (the contract: `feeds list`
            // and `status` show it also before any store exists), and nothing else.
            try StoreSchema.migrator.migrate(connection)
            store = FeedStore(
                path: path, resolvedPath: path, database: SQLiteDatabase(connection), wait: .zero, writes: false)
        } catch {
            throw StoreFile.failure(error, path: path)
        }
        return store
    }

    /// Whether a store exists at `path`: its file, or a journal that holds its data.
    public static func exists(at path: String) -> Bool {
        FileManager.default.fileExists(atPath: path) || FileManager.default.fileExists(atPath: path + "-wal")
    }

    /// A connection set up as every run needs it: busy timeout, foreign keys, and for a writer
    /// the sync level and no checkpoint at close.
    private static func connect(
        _ location: String, flags: Int32, wait: Duration, clock: FeedLock.WaitingClock, writes: Bool
    ) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: location, flags: flags)
        connection.waitWhileBusy(upTo: wait, clock: clock)
        // The schema's `ON DELETE CASCADE` (removing a feed removes its entries) needs it.
        try connection.execute("PRAGMA foreign_keys = ON")
        if writes {
            // In WAL mode, NORMAL syncs at checkpoints instead of at every commit: a killed
            // process still keeps every committed transaction and the file never corrupts;
            // only a power loss may roll back the last commits. Polling cron runs need no more.
            try connection.execute("PRAGMA synchronous = NORMAL")
            // Debian's SQLite zeroes every deleted row's bytes and every freed page
            // (SQLITE_SECURE_DELETE), which made a pruning `follow` write a freed page for each
            // one or two entries pruned. FAST zeroes only what is rewritten anyway; a freed page
            // keeps its bytes until reused, or until `store compact` rewrites the file.
            try connection.execute("PRAGMA secure_delete = FAST")
            // Checkpoints after commits keep the journal short, on a thread of their own
            // (`JournalCheckpointer`); one at every close would cost each short run (a `next`) a
            // checkpoint and an fsync. `StoreJournal` bounds the rest.
            _ = feed_sqlite_no_checkpoint_on_close(connection.handle)
            try StoreJournal.limit(connection)
            connection.checkpointInBackground(JournalCheckpointer(path: location))
        }
        return connection
    }

    /// Migrates to the current schema, makes the journal WAL and turns on incremental
    /// auto-vacuum, once, when the store needs it.
    private func prepare(access: Access, isWAL: Bool, notice: (String) -> Void) throws(FeedFailure) {
        let migrator = StoreSchema.migrator
        let (isCurrent, newer, givesBack) = try read { db in
            let standing = try migrator.standing(db)
            return (standing.isComplete, standing.unknown, try Self.givesBackSpace(db))
        }
        if newer > 0 {
            // Machines running two versions share a store: the older one reads what it can and
            // writes nothing into a schema it does not know.
            if access == .readOnly { return }
            throw .storeAccess(
                StoreRules.newerSchema(
                    path, version: migrator.migrations.count + newer, known: migrator.migrations.count))
        }
        if isCurrent && isWAL && givesBack { return }
        if access == .readOnly {
            if isCurrent { return }
            // A store an older feedcli made, read first by a newer one (`list` after an upgrade):
            // its schema is upgraded where the file can be written (the upgrade changes nothing
            // the user stored); a read-only file cannot be.
            guard writes else {
                throw .storeAccess(
                    "\(path) needs an upgrade to this feedcli's schema, which a read-only file cannot take")
            }
        }
        // First runs racing each other (cron and a person) migrate one at a time.
        let lock = try FeedLock.acquire(
            path: lockPath(for: "store"), wait: wait, holder: "the state store", clock: clock)
        do {
            // WAL mode is persistent: set once here, not on every open. The lock is held to the end.
            try withExtendedLifetime(lock) {
                try database.withConnection { db in
                    // A new store gives freed pages back from its start: the mode must be set
                    // before its first table.
                    let isNew = try db.statement("SELECT COUNT(*) FROM sqlite_master").first { $0.int64(0) } == 0
                    if isNew { try db.execute("PRAGMA auto_vacuum = INCREMENTAL") }
                    if !isWAL { try db.execute("PRAGMA journal_mode = WAL") }
                    try migrator.migrate(db)
                    // Converted by the first command that writes: a reading command brings the
                    // schema up to date (it reads through it) but never rewrites a big store.
                    if access == .readWrite, !isNew, !(try Self.givesBackSpace(db)) {
                        try convertToIncrementalVacuum(db, notice: notice)
                    }
                }
            }
        } catch {
            throw .storeAccess("\(path): migration failed: \(StoreFile.describe(error))")
        }
    }

    /// Turns on incremental auto-vacuum in a store made before retention: `VACUUM` rewrites the
    /// file with the mode set, through the journal, so a run killed meanwhile leaves the store as
    /// it was (and the next run converts it). Once per store, said in one line.
    ///
    /// `VACUUM` needs room for a copy of the store (and its journal): on a disk too full for it,
    /// the store is left unconverted and the command goes on, saying how much room is needed, so
    /// that `feeds set --keep` and `store compact`, the ways to free space, still work.
    private func convertToIncrementalVacuum(_ db: SQLiteConnection, notice: (String) -> Void) throws {
        notice("converting the store at \(path) to give freed space back (once; a large store takes a while)")
        do {
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute("VACUUM")
        } catch {
            guard error.code == SQLITE_FULL else { throw error }
            var info = stat()
            let size = stat(resolvedPath, &info) == 0 ? Int(info.st_size) : 0
            notice(
                "the store at \(path) was not converted: the disk is too full (the conversion writes a copy "
                    + "of the store, about \(ByteCount.of(2 * size)) with its journal); it works as it is, and "
                    + "a later command converts it once there is room (feeds set --keep frees space)")
        }
    }

    /// Serializes runs on one feed across processes (see `FeedLock`). Feed names are encoded in
    /// the lock file's name, so no name can reach outside the locks folder.
    public func lock(feedNamed feed: String) throws(FeedFailure) -> FeedLock {
        try FeedLock.acquire(
            path: lockPath(for: "feed-" + StoreFile.fileNameSafe(feed)), wait: wait, holder: "feed \(feed)",
            clock: clock)
    }

    /// The feed's lock if no other run holds it, without waiting; nil when one does.
    public func attemptLock(feedNamed feed: String) throws(FeedFailure) -> FeedLock? {
        try FeedLock.attempt(path: lockPath(for: "feed-" + StoreFile.fileNameSafe(feed)))
    }

    /// A feed's owner lock: held by the `follow` that follows it (`FeedOwnerLock`).
    public func attemptOwnership(feed: String) throws(FeedFailure) -> (any HeldFeedLock)? {
        let owned = ownedFeeds
        guard
            let lock = try FeedOwnerLock.attempt(
                path: lockPath(for: "follow-" + StoreFile.fileNameSafe(feed)),
                holder: "feedcli follow (pid \(getpid()))", release: { owned.withLock { _ = $0.remove(feed) } })
        else { return nil }
        owned.withLock { _ = $0.insert(feed) }
        return lock
    }

    /// The run that owns `feed`, in words, when it is not this one. The owners' files are
    /// listed once a second at most (a sync of a thousand feeds lists the folder once, not a
    /// thousand times); only a feed that has one is looked at (its lock, its words).
    public func ownerElsewhere(feed: String) throws(FeedFailure) -> String? {
        let files = ownerFiles()
        guard !files.isEmpty, !ownedFeeds.withLock({ $0.contains(feed) }) else { return nil }  // no follow runs
        let name = "follow-" + StoreFile.fileNameSafe(feed)
        guard files.contains(name + ".lock") else { return nil }
        return FeedOwnerLock.owner(path: lockPath(for: name))
    }

    /// The names of the owners' lock files in the locks folder, as listed within the last second.
    private func ownerFiles() -> Set<String> {
        let now = ContinuousClock.now
        return listedOwners.withLock { listed in
            if let listed, now - listed.at < .seconds(1) { return listed.names }
            let names = Set(
                ((try? FileManager.default.contentsOfDirectory(atPath: resolvedPath + ".locks")) ?? []).filter {
                    $0.hasPrefix("follow-")
                })
            listed = (now, names)
            return names
        }
    }

    private func lockPath(for name: String) -> String {
        resolvedPath + ".locks/" + name + ".lock"
    }

    /// Runs `body` in a read transaction (one snapshot, however many statements).
    package func read<T>(_ body: (SQLiteConnection) throws -> T) throws(FeedFailure) -> T {
        do {
            return try database.withConnection { db in try db.transaction(immediate: false) { try body(db) } }
        } catch {
            throw StoreFile.failure(error, path: path)
        }
    }

    /// Runs `body`, whose statements each stand alone, outside any transaction: SQLite makes each
    /// statement atomic by itself, and a BEGIN and COMMIT would cost as much as the statement.
    /// For one-statement reads, and for writes whose one change needs no companion.
    package func statements<T>(_ body: (SQLiteConnection) throws -> T) throws(FeedFailure) -> T {
        do {
            return try database.withConnection(body)
        } catch {
            throw StoreFile.failure(error, path: path)
        }
    }

    /// Runs `body` in a write transaction: all of it is committed, or none of it.
    package func write<T>(_ body: (SQLiteConnection) throws -> T) throws(FeedFailure) -> T {
        do {
            return try database.withConnection { db in try db.transaction(immediate: true) { try body(db) } }
        } catch {
            throw StoreFile.failure(error, path: path)
        }
    }
}
