import FeedModel
import FeedReactive
import FeedTesting
import Synchronization
import Testing

@testable import FeedKinds

/// The parts a live stream is built of: groups of what arrived together, a graceful end on a
/// trigger, and the reconnection schedule (on a virtual clock).
@Suite("Stream operators")
struct StreamOperatorTests {
    /// A source the test drives by hand.
    final class Source: Sendable {
        let observer = Mutex<Observer<Int>?>(nil)
        var observable: Observable<Int> {
            Observable { [self] observer in
                self.observer.withLock { $0 = observer }
                return Disposables.create { [self] in self.observer.withLock { $0 = nil } }
            }
        }
        func send(_ event: Event<Int>) { observer.withLock { $0 }?.send(event) }
        var isSubscribed: Bool { observer.withLock { $0 != nil } }
    }

    @Test func aChunksSignalsAreCutIntoGroupsOfAtMostAHundredItems() {
        func item(_ n: Int) -> StreamSignal {
            .item(StreamItem(json: Array("{\"id\":\(n)}".utf8), lastEventID: nil, arrivedAt: .distantPast))
        }
        let signals: [StreamSignal] =
            [.retry(.seconds(1))] + (1...250).map(item) + [.ignored(why: "x", lastEventID: "9")]
        let groups = StreamSync.groups(of: signals)
        let itemCounts = groups.map { $0.count { if case .item = $0 { true } else { false } } }
        #expect(itemCounts == [100, 100, 50], "the contract: committed at least every 100 entries")
        #expect(groups.flatMap { $0 }.count == signals.count, "nothing lost, nothing doubled, in order")
        #expect(StreamSync.groups(of: [item(1)]).count == 1, "an event alone is a group of its own, at once")
    }

    @Test func groupsThatWaitedTogetherAreJoinedWhileTheyFitOneBatch() {
        func item(_ n: Int) -> StreamSignal {
            .item(StreamItem(json: Array("{\"id\":\(n)}".utf8), lastEventID: String(n), arrivedAt: .distantPast))
        }
        func group(_ range: ClosedRange<Int>, isRead: Bool = true, next: String? = nil) -> StreamSync.ReadGroup {
            let items = range.map { n in
                FeedItem(id: String(n), source: RawJSON(compactText: "{}"))
            }
            return StreamSync.ReadGroup(
                signals: range.map(item), receipts: [], isRead: isRead,
                items: isRead ? StreamSync.ReadItems(items: items, next: next, skipped: 1, filtered: 2) : nil)
        }
        // Four chunks of twelve and one of sixty: joined while a batch holds at most 100.
        let chunks = [
            [group(1...12)], [group(13...24, next: "c2")], [group(25...36)], [group(37...48)], [group(49...108)],
        ]
        let joined = StreamSync.joined(chunks)
        #expect(joined.map(\.itemCount) == [48, 60], "four joined; the fifth would make 108")
        #expect(joined[0].items?.items.map(\.id) == (1...48).map(String.init), "in order")
        #expect(joined[0].items?.next == "c2", "the last cursor among them")
        #expect(joined[0].items.map { [$0.skipped, $0.filtered] } == [4, 8], "counts added up")
        #expect(joined.flatMap(\.signals).count == 108, "nothing lost, nothing doubled")
        // Signals that are not items (a retry, an ignored event) join a full batch: they add none.
        let noItems = StreamSync.ReadGroup(signals: [.retry(.seconds(1))], receipts: [], isRead: true)
        #expect(StreamSync.joined([[group(1...100)], [noItems], [noItems]]).map(\.signals.count) == [102])
        // A group still to be read by jq is not joined with one read already.
        #expect(StreamSync.joined([[group(1...2)], [group(3...4, isRead: false)]]).count == 2)
        #expect(
            StreamSync.joined([[group(1...2, isRead: false)], [group(3...4, isRead: false)]]).map(\.itemCount) == [4])
    }

    @Test func takeUntilEndsGracefullyAndLetsTheSourceGo() {
        let source = Source()
        let trigger = Subject<Void>()
        let received = Recorder<Int>()
        source.observable.take(until: trigger.observable).subscribe(received.handler)
        source.send(.next(1))
        #expect(source.isSubscribed)
        trigger.send(.completed)
        #expect(received.elements == [1] && received.isCompleted && received.terminalCount == 1)
        #expect(!source.isSubscribed, "the source is disposed")
        let late = Recorder<Int>()
        Source().observable.take(until: trigger.observable).subscribe(late.handler)
        #expect(late.isCompleted, "a trigger that fired already ends at once")
    }

    @Test func reconnectionWaitsTheServersRetryDoublingToThirtySecondsAndStartsOverWhenHealthy() {
        var reconnection = StreamReconnection()
        let noJitter = { (connected: Duration) in
            reconnection.delay(afterConnectedFor: connected, retryAfter: nil, random: 0)
        }
        #expect([noJitter(.zero), noJitter(.zero), noJitter(.zero)] == [.seconds(1), .seconds(2), .seconds(4)])
        for _ in 0..<10 { _ = noJitter(.zero) }
        #expect(noJitter(.zero) == .seconds(30), "at most 30 s")
        #expect(noJitter(.seconds(60)) == .seconds(1), "60 s connected: healthy again")
        reconnection = StreamReconnection()
        reconnection.serverDelay = .milliseconds(250)
        #expect(
            reconnection.delay(afterConnectedFor: .zero, retryAfter: nil, random: 1) == .milliseconds(125),
            "jitter takes up to half")
        #expect(
            reconnection.delay(afterConnectedFor: .zero, retryAfter: .seconds(7), random: 0) == .seconds(7),
            "Retry-After at least")
    }
}
