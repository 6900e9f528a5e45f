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
