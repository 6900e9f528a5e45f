import Dispatch
import Foundation
import Logging

/// Everything the feed reactor reaches outside itself, injected so that tests run it against a
/// loopback server, a temporary store, a virtual clock, fixed randomness and an in-memory output.
public struct FeedEnvironment: Sendable {
    public var store: FeedStore
    public var http: HTTPClient
    public var options: FetchOptions
    /// Where delivered entries are printed, before they are committed.
    public var output: any EntryOutput
    /// Where retry backoff waits.
    public var scheduler: any Scheduler
    /// Jitter source in `0...1`.
    public var random: @Sendable () -> Double
    /// The wall clock, for `fetched_at` and `Retry-After` times.
    public var now: @Sendable () -> Date
    /// Process environment, for bearer tokens.
    public var environment: [String: String]
    /// Request log (`--verbose` routes it to stderr).
    public var logger: Logger
    /// Told of each step of delivering a feed's entries, for tests that interrupt a run at
    /// every step.
    public var onStep: @Sendable (RunStep) -> Void

    public init(
        store: FeedStore, http: HTTPClient, options: FetchOptions = FetchOptions(),
        output: any EntryOutput = EntryPrinter(format: .jsonl, layout: .list, sink: BufferSink()),
        scheduler: any Scheduler = DispatchScheduler(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        now: @escaping @Sendable () -> Date = { Date() },
        environment: [String: String] = [:],
        logger: Logger = Logger(label: "feedcli", factory: { _ in SwiftLogNoOpLogHandler() }),
        onStep: @escaping @Sendable (RunStep) -> Void = { _ in }
    ) {
        self.store = store
        self.http = http
        self.options = options
        self.output = output
        self.scheduler = scheduler
        self.random = random
        self.now = now
        self.environment = environment
        self.logger = logger
        self.onStep = onStep
    }

    /// Decoding, store work and printing run here, one at a time, never on the HTTP client's
    /// worker thread.
    static let workQueue = DispatchQueue(label: "feedcli.work")
    /// Waiting for a feed's lock blocks a thread of this queue, never the caller or the work queue.
    static let lockQueue = DispatchQueue(label: "feedcli.locks", attributes: .concurrent)

    var fetcher: FeedFetcher {
        FeedFetcher(http: http, workQueue: Self.workQueue, options: options, scheduler: scheduler, random: random,
                    environment: environment, logger: logger)
    }
}

/// The steps of a run around its output, in order, as `FeedEnvironment.onStep` reports them.
public enum RunStep: String, Sendable, CaseIterable {
    /// The feed's lock is held.
    case locked
    /// New entries are in hand, not printed yet.
    case fetched
    /// About to print them.
    case delivering
    /// Printed (all, or as many as the output took).
    case delivered
    /// What was printed is committed.
    case committed
}
