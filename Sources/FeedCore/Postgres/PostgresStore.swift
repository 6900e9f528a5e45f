import CPostgres
import FeedBase
import FeedModel
import FeedStoreContract
import FoundationEssentials

/// The store in a PostgreSQL database that several machines share (`--state postgresql://…`):
/// the same feeds, entries and guarantees as the SQLite `FeedStore`, in the schema `feedcli`.
///
/// Guarantees (the contract's "One store for several machines"):
/// - Every change is one transaction: a run killed at any moment, or whose connection drops,
///   leaves everything committed before and nothing half-way.
/// - Runs on one feed exclude each other on every machine (advisory locks, `PostgresLocks`),
///   waiting up to `wait`; `next` delivers under its feed's lock, so no two machines print one
///   entry, and entry numbers are reserved under the row lock of `entry_numbers`.
/// - A failure to reach the server is 74 with libpq's reason, before anything is created; a
///   connection lost mid-run is 75 (temporary: the next run goes on).
///
/// Thread contract: one connection per store, used by one thread at a time under `lock` (a
/// recursive lock: a feed lock let go inside a store call releases itself on the same thread);
/// calls block on the network; make them from a thread that may block.
///
/// @unchecked Sendable invariant: `connection`, `entry` and `heldFeeds` are touched only while `lock` is
/// held (`withConnection`), and nothing of the connection escapes a call but copied values.
public final class PostgresStore: StateStore, @unchecked Sendable {
    public let location: String
    private let connection: PostgresConnection
    private let lock = RecursiveLock()
    private let wait: Duration
    private let clock: LockWaitingClock
    /// Feeds whose lock this process holds: a session's advisory locks are re-entrant, file locks
    /// are not, and a run must not take one feed twice.
    private var heldFeeds: Set<String> = []
    /// Feeds this process owns (`attemptOwnership`), for the same reason.
    private var ownedFeeds: Set<String> = []
    /// The feeds other sessions own, as last read, and when (`ownerElsewhere`).
    private var owners: (readAt: ContinuousClock.Instant, byFeed: [String: String])?

    /// Whether the schema's version was read and found writable; until then every call reads it
    /// first (`open` sent the question). A failure stays: every later call throws it.
    private var entry: Entry

    private enum Entry {
        case asked
        case entered
        case failed(FeedFailure)
    }

    private init(connection: PostgresConnection, wait: Duration, clock: LockWaitingClock, entry: Entry) {
        self.connection = connection
        self.location = connection.location
        self.wait = wait
        self.clock = clock
        self.entry = entry
    }

    /// Connects to the database at `url`; its schema is brought to the current version before
    /// the store's first statement. A command that only reads (`.readOnly`) never creates the
    /// schema: nil when there is none (the command then reads an empty store standing for it).
    /// `ahead`: a connection to `url` begun before (`PostgresConnectionAhead`), taken in place of
    /// a new one.
    ///
    /// A store that writes sends the question of its version here and reads the answer at its
    /// first call (`enterIfAsked`): the round trip runs beside the command's set-up between
    /// opening the store and using it (a reactor's: 0.8 ms of a `next`), where it was a wait of
    /// its own. A failure to connect is thrown here; a schema too new to write (74), or a
    /// migration's failure, by the first call and every one after it. A store that reads
    /// learns its version here, as it must to answer nil.
    public static func open(
        url: String, wait: Duration = .seconds(30), access: StoreAccess = .readWrite, clock: LockWaitingClock = .live,
        ahead: PostgresConnectionAhead? = nil
    ) throws(FeedFailure) -> PostgresStore? {
        let connection: PostgresConnection
        if let begun = try ahead?.take(url: url) {
            connection = begun
        } else {
            connection = try PostgresConnection.connect(url: url, timeout: wait)
        }
        guard access == .readWrite else {
            let version = try PostgresSchema.enter(connection)
            guard let version else { return nil }
            if version < PostgresSchema.migrations.count { try PostgresSchema.migrate(connection) }
            return PostgresStore(connection: connection, wait: wait, clock: clock, entry: .entered)
        }
        try PostgresSchema.sendEntry(connection)
        return PostgresStore(connection: connection, wait: wait, clock: clock, entry: .asked)
    }

    public func finish() {}

    /// Runs `body` with the connection, excluding every other thread of this process meanwhile,
    /// once the schema is known to be writable (`enterIfAsked`).
    func withConnection<T>(_ body: (PostgresConnection) throws(FeedFailure) -> T) throws(FeedFailure) -> T {
        lock.lock()
        defer { lock.unlock() }
        try enterIfAsked()
        return try body(connection)
    }

    /// Reads the version `open` asked for, the first time: a newer schema than this feedcli's is
    /// refused (74, naming both), an older one (or none) migrated. Called under `lock`.
    private func enterIfAsked() throws(FeedFailure) {
        switch entry {
        case .entered: return
        case .failed(let failure): throw failure
        case .asked: break
        }
        do throws(FeedFailure) {
            let version = try PostgresSchema.receiveEntry(connection)
            let known = PostgresSchema.migrations.count
            if let version, version > known {
                throw FeedFailure.storeAccess(StoreRules.newerSchema(location, version: version, known: known))
            }
            if (version ?? 0) < known { try PostgresSchema.migrate(connection) }
            entry = .entered
        } catch {
            entry = .failed(error)
            throw error
        }
    }

    /// Runs `body` in a transaction: all of it is committed, or none of it. A read sees one
    /// snapshot however many statements it runs.
    func transaction<T>(readOnly: Bool = false, _ body: (PostgresConnection) throws(FeedFailure) -> T)
        throws(FeedFailure) -> T
    {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> T in
            try db.execute(readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN")
            let value: T
            do throws(FeedFailure) {
                value = try body(db)
            } catch {
                if db.isUp { _ = try? db.execute("ROLLBACK") }
                throw error
            }
            try db.execute("COMMIT")
            return value
        }
    }

    // MARK: Feed locks

    /// An advisory lock names no file, so a feed's name is looked up under it, not before.
    public var locksNeedKnownFeeds: Bool { false }

    public func lock(feed: String) throws(FeedFailure) -> any HeldFeedLock {
        let deadline = clock.elapsed() + wait
        while true {
            if let lock = try attemptLock(feed: feed) { return lock }
            guard clock.elapsed() < deadline else {
                throw .temporary("feed \(feed) is busy in another feedcli run (waited \(wait.components.seconds) s)")
            }
            clock.pause(LockWaitingClock.pollInterval)
        }
    }

    public func attemptLock(feed: String) throws(FeedFailure) -> (any HeldFeedLock)? {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> (any HeldFeedLock)? in
            guard !heldFeeds.contains(feed) else { return nil }
            return hold(feed, ifTaken: try db.execute(Self.lockStatement, Self.lockKey(feed)))
        }
    }

    /// The lock and the feed's record in one round trip (`pipelined`): the read is its own
    /// statement after the lock's, so it sees what the lock's last holder committed. When the
    /// lock is not taken, the read is dropped. The statements a run under the lock goes on with
    /// are sent to be prepared in the same flight (`statementsAfterAFetch`): the server parses
    /// them while the run's request is out, where they were the run's wait after its answer.
    public func attemptLockReading(feed: String) throws(FeedFailure) -> (
        lock: any HeldFeedLock, record: Result<FeedRecord, FeedFailure>
    )? {
        try withConnection {
            (db: PostgresConnection) throws(FeedFailure) -> (
                lock: any HeldFeedLock, record: Result<FeedRecord, FeedFailure>
            )? in
            guard !heldFeeds.contains(feed) else { return nil }
            let answers = try db.pipelined(
                [
                    (Self.lockStatement, Self.lockKey(feed)),
                    (Self.feedQuery + " WHERE name = $1", [.text(feed)]),
                ], preparing: Self.statementsAfterAFetch)
            guard let lock = hold(feed, ifTaken: try answers[0].get()) else { return nil }
            let record = Result { () throws(FeedFailure) -> FeedRecord in
                let found = try answers[1].get()
                // An unknown name: 66 with the nearest names, as a read on its own says it.
                guard found.count == 1 else { return try Self.record(db, name: feed) }
                return try found.row(0).feedRecord()
            }
            return (lock, record)
        }
    }

    /// A feed's owner lock: a session-level advisory lock in the owners' space.
    public func attemptOwnership(feed: String) throws(FeedFailure) -> (any HeldFeedLock)? {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> (any HeldFeedLock)? in
            guard !ownedFeeds.contains(feed) else { return nil }
            let answer = try db.execute(Self.lockStatement, Self.ownerKey(feed))
            guard answer.count == 1, answer.row(0).bool(0) else { return nil }
            ownedFeeds.insert(feed)
            return PostgresFeedLock { [self] in
                lock.withLock {
                    ownedFeeds.remove(feed)
                    guard connection.isUp else { return }
                    connection.sendDiscardingResult(
                        "SELECT pg_advisory_unlock($1::int, hashtext($2))", Self.ownerKey(feed))
                }
            }
        }
    }

    /// The session that holds `feed`'s owner lock, when it is not this one: its backend's pid
    /// and client address, as the server knows them. Read for every feed of the store at once
    /// and kept for `ownersFreshFor` (a sync of a thousand feeds asks once, not a thousand times).
    public func ownerElsewhere(feed: String) throws(FeedFailure) -> String? {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> String? in
            guard !ownedFeeds.contains(feed) else { return nil }
            let now = ContinuousClock.now
            if let owners, now - owners.readAt < Self.ownersFreshFor { return owners.byFeed[feed] }
            let answer = try db.execute(
                """
                SELECT f.name, a.pid::text, COALESCE(host(a.client_addr), 'a local socket')
                FROM pg_locks l
                JOIN pg_stat_activity a ON a.pid = l.pid
                JOIN feed f ON l.objid = (hashtext(f.name))::oid
                WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = ($1::int)::oid
                    AND l.pid <> pg_backend_pid()
                """, [.text(String(PostgresLocks.ownerClass))])
            var byFeed: [String: String] = [:]
            for index in 0..<answer.count {
                let row = answer.row(index)
                guard let name = row.text(0) else { continue }
                byFeed[name] = "a feedcli follow (PostgreSQL backend \(row.text(1) ?? "?") from \(row.text(2) ?? "?"))"
            }
            owners = (now, byFeed)
            return byFeed[feed]
        }
    }

    /// How long a read of the feeds' owners stands (`ownerElsewhere`).
    private static let ownersFreshFor: Duration = .seconds(1)

    private static func ownerKey(_ feed: String) -> [PostgresValue] {
        [.text(String(PostgresLocks.ownerClass)), .text(feed)]
    }

    private static let lockStatement = "SELECT pg_try_advisory_lock($1::int, hashtext($2))"

    /// A feed's advisory lock key, the parameters of its lock and unlock statements.
    private static func lockKey(_ feed: String) -> [PostgresValue] {
        [.text(String(PostgresLocks.feedClass)), .text(feed)]
    }

    /// The feed's lock, held by this process from now on, when `answer` (the lock statement's)
    /// says it was taken; nil when another session holds it. Called under `lock`.
    private func hold(_ feed: String, ifTaken answer: PostgresResult) -> PostgresFeedLock? {
        guard answer.count == 1, answer.row(0).bool(0) else { return nil }
        heldFeeds.insert(feed)
        return PostgresFeedLock { [self] in self.unlock(feed: feed) }
    }

    private func unlock(feed: String) {
        lock.withLock {
            heldFeeds.remove(feed)
            guard connection.isUp else { return }
            connection.sendDiscardingResult("SELECT pg_advisory_unlock($1::int, hashtext($2))", Self.lockKey(feed))
        }
    }
}
