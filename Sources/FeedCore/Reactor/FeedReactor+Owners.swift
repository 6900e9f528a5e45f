import FeedModel
import FeedReactive
import FeedStoreContract
import FoundationEssentials
import Synchronization

/// A feed that a `follow` owns (`FeedStoring.attemptOwnership`) is fetched by no other run: its
/// new entries are that follow's to print or hand to its `--exec`. A `sync` or a `next` that
/// would fetch it waits for the follow to let go (up to `--wait`, saying so once), then is busy
/// (75); with `--skip-busy` it leaves the feed to the follow. A `next` of stored entries, and
/// every reading command, never waits for it.
extension FeedReactor {
    /// Thrown under a feed's lock where a fetch would begin, when another run owns the feed:
    /// the lock is let go, and `waitingForOwner` waits outside it.
    struct OwnedElsewhere: Error {
        var feed: String
        var owner: String
    }

    /// Throws `OwnedElsewhere` when another run owns `feed`.
    func checkOwner(of feed: String) throws {
        if let owner = try environment.store.ownerElsewhere(feed: feed) {
            throw OwnedElsewhere(feed: feed, owner: owner)
        }
    }

    /// `work` (a feed's work under its lock), again once the run that owns the feed let it go,
    /// when it failed with `OwnedElsewhere`: waited for on the scheduler, holding no thread and no
    /// lock, every `busyPoll` up to `--wait`; then a failure (75) of the feed, not recorded in the
    /// store (the feed is healthy in its owner's hands).
    func waitingForOwner(_ work: Observable<FeedMutation>) -> Observable<FeedMutation> {
        let store = environment.store
        let scheduler = environment.scheduler
        let wait = environment.options.busyWait
        let skipsBusy = environment.options.skipBusy
        let logger = environment.logger
        return work.catch { error in
            guard let owned = error as? OwnedElsewhere else { throw error }
            if skipsBusy {
                logger.info("\(owned.feed): \(owned.owner) follows it; left to that run (--skip-busy)")
                return .empty()
            }
            let said = FeedMutation.warned(
                feed: owned.feed,
                "\(owned.owner) follows it; waiting for that run to let it go (up to --wait, \(wait.components.seconds) s)"
            )
            // Completes once the owner let go; at `--wait`, the feed's failure instead.
            let timedOut = Mutex(false)
            let gone = Observable<FeedMutation> { observer in
                let deadline = ContinuousClock.now + wait
                let poll = SerialDisposable()
                @Sendable func look() {
                    poll.replace(
                        with: scheduler.schedule(after: Self.busyPoll) {
                            let owner = try? store.ownerElsewhere(feed: owned.feed)
                            if owner == nil { return observer.complete() }
                            guard ContinuousClock.now < deadline else {
                                timedOut.withLock { $0 = true }
                                observer.next(
                                    .failed(
                                        feed: owned.feed,
                                        .temporary(
                                            "\(owned.feed) is followed by \(owner ?? owned.owner) (waited \(wait.components.seconds) s): "
                                                + "its new entries are that run's")))
                                return observer.complete()
                            }
                            look()
                        })
                }
                look()
                return poll
            }
            let again = Observable<FeedMutation>.deferred {
                guard !timedOut.withLock({ $0 }) else { return .empty() }
                return work.catch { error in
                    guard let owned = error as? OwnedElsewhere else { throw error }  // owned again at once
                    return .just(.failed(feed: owned.feed, .temporary("\(owned.feed) is followed by \(owned.owner)")))
                }
            }
            return .concat([.just(said), gone, again])
        }
    }
}
