import Dispatch
import FeedBase
import FeedModel
import FeedReactive
import FeedStoreContract
import FoundationEssentials
import Glibc

/// Gathers the commits of fetches that found nothing new and writes them in one transaction.
///
/// A sync of 1,000 quiet feeds would otherwise pay 1,000 commits (a journal write and file locks
/// each), more than everything else it does. A commit handed in here waits until the queue has
/// handled the work already queued on it (typically other feeds' responses, which add their own
/// commits), then all of them are written together and each feed hears its own outcome.
///
/// Only commits with no entries come here: nothing printed waits on them, and a feed's lock is
/// still held until its commit is written (its work completes only then), so no other run sees
/// the feed between its fetch and its bookkeeping.
///
/// Threading: `commit` may be called from any thread; outcomes are delivered on `queue`. Without
/// a queue (reactor tests on an in-memory store), each commit is written at once, on the
/// subscribing thread, and the whole run stays synchronous.
package final class GroupCommit: Sendable {
    private struct Waiting: Sendable {
        var feed: String
        var commit: FetchCommit
        var observer: Observer<FeedRecord>
    }

    private let store: any FeedStoring
    private let queue: DispatchQueue?
    private let waiting = Locked<[Waiting]>([])

    package init(store: any FeedStoring, queue: DispatchQueue?) {
        self.store = store
        self.queue = queue
    }

    /// Commits `commit` of `feed` together with the others gathered meanwhile; emits the feed's
    /// record after it. Cold: nothing is queued until subscription.
    package func commit(feed: String, _ commit: FetchCommit) -> Observable<FeedRecord> {
        Observable { [self] observer in
            let entry = Waiting(feed: feed, commit: commit, observer: observer)
            guard let queue else {
                write([entry])
                return Disposables.empty
            }
            let isFirst = waiting.withLock { waiting in
                waiting.append(entry)
                return waiting.count == 1
            }
            if isFirst { queue.async { self.flush() } }
            // A disposed subscriber hears nothing (Observable's grammar); its bookkeeping is still
            // written, which is right: the fetch it records did complete.
            return Disposables.empty
        }
    }

    private func flush() {
        write(
            waiting.withLock { waiting in
                defer { waiting = [] }
                return waiting
            })
    }

    private func write(_ batch: [Waiting]) {
        guard !batch.isEmpty else { return }
        do {
            let outcomes = try store.commitNothingNew(batch.map { ($0.feed, $0.commit) })
            for (entry, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .success(let record):
                    entry.observer.next(record)
                    entry.observer.complete()
                case .failure(let failure):
                    entry.observer.fail(failure)
                }
            }
        } catch {
            for entry in batch { entry.observer.fail(error) }
        }
    }
}
