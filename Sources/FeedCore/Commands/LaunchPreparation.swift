import Dispatch
import FeedBase
import FeedHTTP
import FeedStore
import FoundationEssentials
import Synchronization

/// What a command that fetches needs first, set up on the other core while ArgumentParser parses
/// the command line: the store opened, and curl's process-wide set-up done. Parsing takes about
/// 2.5 ms in which that core is otherwise idle, and start-up is most of what `feedcli next`
/// costs (`scripts/bench.sh`, the `next` row).
///
/// The store is opened for the path the command line most likely names (`--state`, else the
/// default from the environment) and the default wait, and only when that changes no file
/// (`FeedStore.openIfReady`). The command takes it only when its parsed options name the same
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
    }

    /// The commands that fetch: they open the store read-write and make an HTTP client.
    package static let fetchingCommands: Set<String> = ["next", "sync"]

    public let storeGuess: StoreGuess?
    /// Whether curl's set-up was started (`feeds add` fetches without opening a store first).
    public let preparesCurl: Bool
    private let store = Mutex<FeedStore?>(nil)
    private let pending = DispatchGroup()

    /// Starts the set-up `arguments` (the command line without the program's name) call for, on
    /// another thread; nothing for commands that do not fetch.
    public static func start(arguments: [String], environment: [String: String]) -> LaunchPreparation {
        let preparation = LaunchPreparation(arguments: arguments, environment: environment)
        preparation.begin()
        return preparation
    }

    package init(arguments: [String], environment: [String: String]) {
        // Options come after the command's name, so the first word that is not an option is it.
        let words = arguments.prefix { $0 != "--" }.filter { !$0.hasPrefix("-") }
        let command = words.first ?? ""
        preparesCurl = Self.fetchingCommands.contains(command) || words.starts(with: ["feeds", "add"])
        storeGuess = Self.fetchingCommands.contains(command)
            ? Self.guessStore(arguments, environment: environment) : nil
    }

    /// The store `--state PATH` or `--state=PATH` names, else the default one; nil when the
    /// command line gives `--wait` (the guess keeps to the default wait) or is ambiguous.
    package static func guessStore(_ arguments: [String], environment: [String: String]) -> StoreGuess? {
        var path: String?
        var remaining = arguments.prefix { $0 != "--" }.makeIterator()
        while let argument = remaining.next() {
            if argument == "--wait" || argument.hasPrefix("--wait=") { return nil }
            let value: String?
            if argument == "--state" {
                value = remaining.next()
            } else if argument.hasPrefix("--state=") {
                value = String(argument.dropFirst("--state=".count))
            } else {
                continue
            }
            guard path == nil, let value, !value.isEmpty else { return nil }
            path = value
        }
        return StoreGuess(path: path ?? CommandContext.defaultStatePath(environment: environment),
                          wait: CommandContext.defaultWait)
    }

    private func begin() {
        guard storeGuess != nil || preparesCurl else { return }
        pending.enter()
        let started = DetachedThread.start(named: "feedcli.launch") { [self] in
            // The store first: after parsing, a command opens it before it makes its HTTP client.
            if let storeGuess {
                let opened = FeedStore.openIfReady(at: storeGuess.path, wait: storeGuess.wait)
                store.withLock { $0 = opened }
            }
            if preparesCurl { HTTPClient.prepare() }
            pending.leave()
        }
        // Without a thread, the command does it all itself when it gets there.
        if started != nil { pending.leave() }
    }

    /// The store opened ahead, when it is the one at `path` with `wait`; once (later calls get
    /// nil). Waits for the set-up to finish.
    public func takeStore(path: String, wait: Duration) -> FeedStore? {
        guard let storeGuess, storeGuess == StoreGuess(path: path, wait: wait) else { return nil }
        pending.wait()
        return store.withLock { $0.take() }
    }

    /// Waits for the set-up to finish (at once when none was started).
    public func finish() {
        pending.wait()
    }
}
