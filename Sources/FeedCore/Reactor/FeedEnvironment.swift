import Dispatch
import FeedKinds
import FeedReactive
import FeedStoreContract
import FoundationEssentials
import Logging

/// Everything the feed reactor reaches outside itself, injected: the store and the fetcher
/// behind small protocols (so a reactor test needs no SQLite file and no socket), the output,
/// the clock, and where blocking work runs.
public struct FeedEnvironment: Sendable {
    public var store: any FeedStoring
    public var fetcher: any FeedFetching
    /// `--max-pages` and `--force` (the rest of the options belong to the live fetcher).
    public var options: FetchOptions
    /// Where delivered entries are printed, before they are committed.
    public var output: any EntryOutput
    /// The wall clock, for `fetched_at` and `Retry-After` times.
    public var now: @Sendable () -> Date
    /// Where waiting for a feed's lock blocks; nil runs it on the subscribing thread (tests with
    /// an in-memory store, which then run synchronously and deterministically).
    public var lockQueue: DispatchQueue?
    /// Where the commits of fetches that found nothing new are gathered and written together
    /// (`GroupCommit`); the live one is the work queue, where responses arrive. Nil writes each
    /// at once (tests that run synchronously).
    public var commitQueue: DispatchQueue?
    /// The progress line, drawn from the state stream (`FeedReactor.transform(state:)`).
    public var progress: (any RunProgress)?
    /// Where streams wait (reconnection backoff, batches, `follow`'s limits): the real clock in
    /// the program, a virtual one in tests.
    public var scheduler: any Scheduler
    /// A number in 0...1 for the jitter of a stream's reconnection.
    public var random: @Sendable () -> Double
    /// Ends every stream gracefully when it fires (completes): Ctrl-C and SIGTERM for `follow`.
    public var stop: Observable<Void>
    /// Where a stream's reconnections and ignored events are said (`-v`).
    public var logger: Logger

    public init(
        store: any FeedStoring, fetcher: any FeedFetching, options: FetchOptions = FetchOptions(),
        output: any EntryOutput, now: @escaping @Sendable () -> Date = { Date() }, lockQueue: DispatchQueue? = nil,
        commitQueue: DispatchQueue? = nil, progress: (any RunProgress)? = nil,
        scheduler: any Scheduler = DispatchScheduler(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        stop: Observable<Void> = Subject<Void>().observable,
        logger: Logger = Logger(label: "feedcli", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        self.fetcher = fetcher
        self.options = options
        self.output = output
        self.now = now
        self.lockQueue = lockQueue
        self.commitQueue = commitQueue
        self.progress = progress
        self.scheduler = scheduler
        self.random = random
        self.stop = stop
        self.logger = logger
    }

    /// Decoding, store work and printing run here, one at a time, never on the HTTP client's
    /// worker thread.
    package static let workQueue = DispatchQueue(label: "feedcli.work")
    /// Waiting for a feed's lock blocks a thread of this queue, never the caller or the work queue.
    package static let lockQueue = DispatchQueue(label: "feedcli.locks", attributes: .concurrent)
}
