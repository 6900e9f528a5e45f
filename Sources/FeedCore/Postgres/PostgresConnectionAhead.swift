import Dispatch
import FeedBase
import FeedModel

/// A connection to a PostgreSQL store begun on a thread of its own as soon as a command knows
/// the store's URL, and taken by `PostgresStore.open` when the command opens the store.
///
/// Why: connecting is most of what a short command costs on a PostgreSQL store, and most of it
/// is work on one core that nothing else waits for: the server's fork of a session, and on the
/// client libpq's password exchange (SCRAM-SHA-256: 4,096 rounds of HMAC, 60 million
/// instructions with Debian 12's libpq and OpenSSL 3, more than the rest of a `next`). Begun
/// when the command's context is made (the plainest `next`'s by the executable, before it reads
/// its environment), it runs beside the command's own start (the context, the HTTP client) on
/// the second core. Measured: 1.6–2.9 ms of a `next` (docs/PERFORMANCE.md). `begin` also seeds
/// OpenSSL's random generator on the caller's thread (`ProcessOpenSSL`): libpq draws the
/// exchange's nonce from it, and its first use was 1.3 ms of the connecting thread's path.
///
/// Thread contract: `begin` starts the thread and returns at once; `take(url:)` may be called
/// from any thread and waits for the connection; the first call gets it, later ones nil (a
/// command that opens its store again connects again). The connection is handed over under a
/// lock, after which the connecting thread never touches it. A connection never taken is
/// closed when this is released.
public final class PostgresConnectionAhead: Sendable {
    /// The URL being connected to, as the command gave it.
    public let url: String
    private let stage = Locked<Stage>(.connecting)
    /// Signalled once the connecting thread has set `stage`; every waiter signals it again.
    private let connected = DispatchSemaphore(value: 0)

    private enum Stage: Sendable {
        case connecting
        case connected(Result<Handover, FeedFailure>)
        case taken
    }

    private init(url: String) { self.url = url }

    /// Begins connecting to `url` (a server's wait at most `timeout`); nil when no thread could
    /// be started, and the store then connects when it is opened, as it would without.
    public static func begin(url: String, timeout: Duration) -> PostgresConnectionAhead? {
        let ahead = PostgresConnectionAhead(url: url)
        let failed = DetachedThread.start(named: "feedcli.connect") {
            let outcome = Result { () throws(FeedFailure) -> Handover in
                Handover(try PostgresConnection.connect(url: url, timeout: timeout))
            }
            ahead.stage.withLock { $0 = .connected(outcome) }
            ahead.connected.signal()
        }
        guard failed == nil else { return nil }
        primeRandomGenerator()
        return ahead
    }

    /// Seeds OpenSSL's random generator on the caller's thread, while the connecting thread
    /// works: the password exchange draws its nonce from it (`ProcessOpenSSL`). False when the
    /// process has no OpenSSL to seed, and nothing was done.
    @discardableResult
    package static func primeRandomGenerator() -> Bool {
        ProcessOpenSSL.primeRandomGenerator()
    }

    /// The connection to `url` once it is made (or the failure to make it, as connecting
    /// would throw it); nil when this connects to another URL or was taken already.
    func take(url: String) throws(FeedFailure) -> PostgresConnection? {
        guard url == self.url else { return nil }
        if case .taken = stage.value { return nil }
        connected.wait()
        connected.signal()
        let found = stage.withLock { stage in
            defer { stage = .taken }
            return stage
        }
        guard case .connected(let outcome) = found else { return nil }
        return try outcome.get().connection
    }
}

/// A connection on its way from the thread that made it to the one that takes it.
///
/// @unchecked Sendable invariant: the connecting thread stores it under
/// `PostgresConnectionAhead.stage`'s lock and never uses it again; the one `take` that gets it
/// out of there is its only user from then on (`PostgresConnection` is used by one thread at a
/// time, libpq's rule).
private final class Handover: @unchecked Sendable {
    let connection: PostgresConnection
    init(_ connection: PostgresConnection) { self.connection = connection }
}
