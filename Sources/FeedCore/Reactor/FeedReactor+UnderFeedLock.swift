import FeedKinds
import FeedModel
import FeedReactive
import FeedStoreContract
import FoundationEssentials

/// One feed's work: under its lock, bracketed by activity, its failure recorded.
extension FeedReactor {
    /// Runs `body` for one feed under its cross-process lock (`.activity(.waitingForLock)` first
    /// when another run holds it, and only then: activity is what happens, whatever the view);
    /// records a failure in the store and turns it into `.failed`. An unknown feed fails (66)
    /// before any file is touched (`FeedStoring.locksNeedKnownFeeds`); `listed` says the name
    /// was just read from the store, which spares that look-up (a feed removed meanwhile is
    /// skipped, found gone under the lock).
    package func underFeedLock(
        _ name: String, listed: Bool = false,
        _ body: @escaping @Sendable (FeedRecord) throws -> Observable<FeedMutation>
    ) -> Observable<FeedMutation> {
        underFeedLock(name, listed: listed, listedFeed: nil, body)
    }

    /// `underFeedLock` of a feed just listed with its record: under the lock, the record is read again
    /// only when the store changed since the listing (see `ListedFeed`).
    package func underFeedLock(
        _ listed: ListedFeed, _ body: @escaping @Sendable (FeedRecord) throws -> Observable<FeedMutation>
    ) -> Observable<FeedMutation> {
        underFeedLock(listed.record.name, listed: true, listedFeed: listed, body)
    }

    /// `listedFeed`: the feed as a listing read it, which stands under the lock while the store
    /// has not changed; without one, the record is read under the lock (with it, when the store
    /// can: `FeedStoring.attemptLockReading`).
    private func underFeedLock(
        _ name: String, listed: Bool, listedFeed: ListedFeed?,
        _ body: @escaping @Sendable (FeedRecord) throws -> Observable<FeedMutation>
    ) -> Observable<FeedMutation> {
        let store = environment.store
        let lockQueue = environment.lockQueue
        let skipsBusy = environment.options.skipBusy
        let logger = environment.logger
        // `read`: the record, when the store read it with the lock.
        let locked = {
            @Sendable (lock: any HeldFeedLock, read: Result<FeedRecord, FeedFailure>?) throws -> Observable<
                FeedMutation
            > in
            let lock = SubscriptionResource(lock)
            let record: FeedRecord  // as it is now that this run holds the feed
            do {
                if let read {
                    record = try read.get()
                } else {
                    record =
                        try listedFeed.map { listed throws(FeedFailure) in try store.feed(listed) }
                        ?? store.feed(named: name)
                }
            } catch {
                // A feed removed since `sync` listed the store's feeds is simply not synced.
                if listed, case .notFound? = error as? FeedFailure { return .empty() }
                throw error
            }
            return lock.bound(
                to: Observable.concat([
                    .just(.loaded(record)),
                    try body(record),
                ]))
        }
        var work = Observable<FeedMutation>.deferred {
            // An unknown name fails (66) here, or under its lock when taking one touches nothing.
            if !listed, store.locksNeedKnownFeeds { _ = try store.feed(named: name) }
            // A free lock is taken where the work is; only waiting for a held one moves to the
            // lock queue (a thread hop per feed was most of what an idle feed cost).
            if listedFeed != nil {
                if let lock = try store.attemptLock(feed: name) { return try locked(lock, nil) }
            } else if let taken = try store.attemptLockReading(feed: name) {
                return try locked(taken.lock, taken.record)
            }
            if skipsBusy {
                logger.info("\(name): another run is syncing it; left to that run (--skip-busy)")
                return .empty()
            }
            let waiting = Observable<FeedMutation>.deferred { try locked(try store.lock(feed: name), nil) }
            return .concat([
                .just(.activity(feed: name, .waitingForLock)), lockQueue.map { waiting.subscribe(on: $0) } ?? waiting,
            ])
        }
        work = work.catch { error in
            if let failure = error as? FeedFailure, failure.stopsTheRun { throw failure }
            if error is OwnedElsewhere { throw error }  // waited for outside the lock (`waitingForOwner`)
            return .deferred { recordFailure(error, feed: name) }
        }
        return work
    }

    package func recordFailure(_ error: any Error, feed: String) -> Observable<FeedMutation> {
        var retryNotBefore: Date?
        if let status = error as? HTTPStatusFailure, let delay = status.retryAfter, [429, 503].contains(status.status) {
            retryNotBefore = environment.now().addingTimeInterval(Double(delay.components.seconds))
        }
        let failure = FeedFailure.wrap(error)
        if case .notFound = failure { return .just(.failed(feed: feed, failure)) }
        do {
            let record = try environment.store.recordFailure(
                feed: feed, failure, at: environment.now(), retryNotBefore: retryNotBefore)
            return .from([.loaded(record), .failed(feed: feed, failure)])
        } catch {
            return .from([.failed(feed: feed, failure), .failed(feed: nil, error)])
        }
    }

    /// The time the server asked not to be asked before, while it still holds (and `--force` was
    /// not given); nil when the feed may be fetched.
    package func retryNotBefore(_ record: FeedRecord) -> Date? {
        guard !environment.options.force, let until = record.retryNotBefore, until > environment.now() else {
            return nil
        }
        return until
    }
}
