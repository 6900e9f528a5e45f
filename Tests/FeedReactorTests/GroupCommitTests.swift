import Dispatch
import FeedReactorTesting
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedBase
@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// `GroupCommit`: quiet feeds' bookkeeping gathered into one transaction, each feed told its own
/// outcome.
@Suite("GroupCommit", .timeLimit(.minutes(3)))
struct GroupCommitTests {
    let names = ["a", "b", "c"]
    let time = Date(timeIntervalSince1970: 1_800_000_000)

    func store() -> MemoryStore {
        MemoryStore(names.map { FeedRegistration(name: $0, url: "http://stub/\($0)", kind: .graph) })
    }

    /// Subscribes a commit for each of `feeds` and returns what each subscriber heard, once every
    /// one has ended (at most 10 s).
    func commit(_ feeds: [String], through group: GroupCommit, on queue: DispatchQueue?) async -> [String] {
        let heard = Locked<[String]>([])
        let ended = TestSignal()
        let subscribe = {
            for feed in feeds {
                group.commit(feed: feed, FetchCommit(fetchedAt: time)).subscribe(
                    onNext: { record in
                        heard.withLock { $0.append("\(feed): \(record.name) at \(record.lastFetchAt == time)") }
                    },
                    onFailed: { error in
                        heard.withLock { $0.append("\(feed): \(error)") }
                        ended.signal()
                    },
                    onCompleted: { ended.signal() })
            }
        }
        if let queue { queue.sync(execute: subscribe) } else { subscribe() }
        for _ in feeds { _ = await ended.wait(seconds: 10) }
        return heard.value.sorted()
    }

    @Test func commitsHandedInWhileTheQueueIsBusyAreWrittenTogether() async {
        let store = store()
        let queue = DispatchQueue(label: "test.commits")
        let heard = await commit(names, through: GroupCommit(store: store, queue: queue), on: queue)
        #expect(store.nothingNewBatches == [names], "one transaction for the three")
        #expect(heard == ["a: a at true", "b: b at true", "c: c at true"], "each feed hears its own record")
    }

    @Test func withoutAQueueEachCommitIsWrittenAtOnce() async {
        let store = store()
        let heard = await commit(names, through: GroupCommit(store: store, queue: nil), on: nil)
        #expect(store.nothingNewBatches == [["a"], ["b"], ["c"]])
        #expect(heard.count == 3)
    }

    @Test func aMissingFeedFailsAloneAndAFailingStoreFailsThemAll() async {
        let store = store()
        let queue = DispatchQueue(label: "test.commits")
        let group = GroupCommit(store: store, queue: queue)
        #expect(
            await commit(["a", "gone"], through: group, on: queue) == ["a: a at true", "gone: no feed named gone"])
        store.failCommits()
        #expect(
            await commit(["b", "c"], through: group, on: queue)
                == ["b: cannot use the state store: disk I/O error", "c: cannot use the state store: disk I/O error"])
    }
}
