import FeedHTTP
import FeedKinds
import FeedReactive
import FeedReactor
import FeedStoreContract
import FoundationEssentials
import Logging

extension FeedEnvironment {
    /// The program's environment, built here in the composition root so that the reactor knows
    /// no HTTP client: the store, curl through `FeedFetcher` (retries with backoff on
    /// `scheduler`, tokens from `environment`, requests logged to `logger`), lock waits on their
    /// own queue, responses handled on the work queue; activity tracked when a progress line is
    /// drawn.
    static func live(
        store: any FeedStoring, http: HTTPClient, options: FetchOptions, output: any EntryOutput,
        scheduler: any Scheduler, now: @escaping @Sendable () -> Date, environment: [String: String], logger: Logger,
        progress: (any RunProgress)?, stop: Observable<Void>
    ) -> FeedEnvironment {
        let random: @Sendable () -> Double = { Double.random(in: 0...1) }
        let fetcher = FeedFetcher(
            http: http, workQueue: workQueue, options: options, scheduler: scheduler,
            random: random, environment: environment, logger: logger)
        return FeedEnvironment(
            store: store, fetcher: fetcher, options: options, output: output, now: now,
            lockQueue: lockQueue, commitQueue: workQueue, progress: progress,
            scheduler: scheduler, random: random, stop: stop, logger: logger)
    }
}
