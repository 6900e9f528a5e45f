import Foundation
import Logging

/// Everything the feed reactor reaches outside itself, injected so that tests run it against a
/// loopback server, a temporary store, a virtual clock and fixed randomness.
public struct FeedEnvironment: Sendable {
    public var store: FeedStore
    public var http: HTTPClient
    public var options: FetchOptions
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

    public init(
        store: FeedStore, http: HTTPClient, options: FetchOptions = FetchOptions(),
        scheduler: any Scheduler = DispatchScheduler(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        now: @escaping @Sendable () -> Date = { Date() },
        environment: [String: String] = [:],
        logger: Logger = Logger(label: "feedcli", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        self.http = http
        self.options = options
        self.scheduler = scheduler
        self.random = random
        self.now = now
        self.environment = environment
        self.logger = logger
    }

    var fetcher: FeedFetcher {
        FeedFetcher(http: http, options: options, scheduler: scheduler, random: random,
                    environment: environment, logger: logger)
    }
}
