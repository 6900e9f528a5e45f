import Dispatch
import FeedBase
import FeedHTTP
import FeedModel
import FeedPostgres
import FeedStore
import FeedStoreContract
import FoundationEssentials
import Synchronization

/// What a command that fetches needs first, set up on the other core while ArgumentParser parses
/// the command line: the store opened, and curl's process-wide set-up done. Parsing takes about
/// 2.5 ms in which that core is otherwise idle, and start-up is most of what `feedcli next`
/// costs (`scripts/bench.sh`, the `next` row).
///
/// The store is opened for the path the command line most likely names (`--state`, else the
/// default from the environment) and the default wait, and only when that changes no file
/// (`FeedStore.openIfReady`); a `postgresql://` store is connected to (`PostgresStore
/// .openIfReady`: the connection and its authentication are most of what such a `next` costs),
/// and a failure to connect is kept for the command to report, so that an unreachable server is
/// waited for once. The command takes it only when its parsed options name the same
/// path and wait (`CommandContext.openStore`), so a wrong guess costs the other core's time and
/// nothing else: a mistyped command leaves no file behind.
///
/// Thread contract: `start` returns at once; `takeStore` and `finish` block until the set-up is
/// done. The process must call `finish()` before it exits through `exit`: the exit handlers that
/// OpenSSL registers must not run while its set-up still does (`_exit` runs none).
public final class LaunchPreparation: Sendable {
    /// The store the command line most likely names.
    public struct StoreGuess: Equatable, Sendable {
        public var path: String
        public var wait: Duration

        public init(path: String, wait: Duration) {
            self.path = path
            self.wait = wait
        }
    }

    public let storeGuess: StoreGuess?
    /// Whether curl's set-up was started (`feeds add` fetches without opening a store first).
    public let preparesCurl: Bool
    private let store = Mutex<Result<any StateStore, FeedFailure>?>(nil)
    private let pending = DispatchGroup()

    /// Starts opening the store `storeGuess` names (when one is given) and curl's set-up (when
    /// `preparesCurl`), on another thread; the executable's first look at the command line says
    /// which (`CommandLinePreparse`).
    public static func start(storeGuess: StoreGuess?, preparesCurl: Bool) -> LaunchPreparation {
        let preparation = LaunchPreparation(storeGuess: storeGuess, preparesCurl: preparesCurl)
        preparation.begin()
        return preparation
    }

    private init(storeGuess: StoreGuess?, preparesCurl: Bool) {
        self.storeGuess = storeGuess
        self.preparesCurl = preparesCurl
    }

    private func begin() {
        guard storeGuess != nil || preparesCurl else { return }
        let onServer = storeGuess.map { StoreRules.isDatabaseURL($0.path) } ?? false
        if onServer {
            // A connection waits for the server to start a backend before it authenticates:
            // meanwhile a thread of its own does the set-up libpq would otherwise wait for
            // (`PostgresStore.prepareClient`), then curl's, which the command needs only once
            // its store is open.
            run(named: "feedcli.tls") { [preparesCurl] in
                PostgresStore.prepareClient()
                if preparesCurl { HTTPClient.prepare() }
            }
        }
        run(named: "feedcli.launch") { [self] in
            // The store first: after parsing, a command opens it before it makes its HTTP client.
            if let storeGuess {
                let opened: Result<any StateStore, FeedFailure>?
                if onServer {
                    opened = PostgresStore.openIfReady(url: storeGuess.path, wait: storeGuess.wait)
                } else {
                    opened = FeedStore.openIfReady(at: storeGuess.path, wait: storeGuess.wait).map { .success($0) }
                }
                store.withLock { $0 = opened }
            }
            if preparesCurl && !onServer { HTTPClient.prepare() }
        }
    }

    /// Runs `work` on a thread of its own, counted in `pending`; without a thread, not at all
    /// (the command does it all itself when it gets there).
    private func run(named name: String, _ work: @escaping @Sendable () -> Void) {
        pending.enter()
        let started = DetachedThread.start(named: name) { [pending] in
            work()
            pending.leave()
        }
        if started != nil { pending.leave() }
    }

    /// The store opened ahead (or the failure to reach it), when it is the one at `path` with
    /// `wait`; once (later calls get nil). Waits for the set-up to finish.
    public func takeStore(path: String, wait: Duration) throws(FeedFailure) -> (any StateStore)? {
        guard let storeGuess, storeGuess == StoreGuess(path: path, wait: wait) else { return nil }
        pending.wait()
        return try store.withLock { $0.take() }?.get()
    }

    /// Waits for the set-up to finish (at once when none was started).
    public func finish() {
        pending.wait()
    }
}
