@testable import FeedKinds
import FeedReactive
import Synchronization
import Testing

/// The operators a live stream is built of, on a virtual clock: groups by count or time, a
/// graceful end on a trigger, and the reconnection schedule.
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

    @Test func bufferEmitsAFullGroupAtOnceAndARestAfterItsTime() {
        let source = Source(), scheduler = TestScheduler(), groups = Recorder<[Int]>()
        source.observable.buffer(count: 3, time: .milliseconds(200), scheduler: scheduler).subscribe(groups.handler)
        for n in 1...4 { source.send(.next(n)) }
        #expect(groups.elements == [[1, 2, 3]], "a full group goes at once")
        scheduler.advance(by: .milliseconds(199))
        #expect(groups.elements == [[1, 2, 3]])
        scheduler.advance(by: .milliseconds(1))
        #expect(groups.elements == [[1, 2, 3], [4]], "200 ms after its first element")
        scheduler.advance(by: .seconds(10))
        #expect(groups.elements.count == 2, "no empty group")
        source.send(.next(5))
        source.send(.completed)
        #expect(groups.elements == [[1, 2, 3], [4], [5]] && groups.isCompleted, "what is held goes before the end")
        #expect(scheduler.requestedDelays == [.milliseconds(200), .milliseconds(200), .milliseconds(200)])
    }

    @Test func bufferHandsOnWhatItHoldsBeforeAFailure() {
        let source = Source(), scheduler = TestScheduler(), groups = Recorder<[Int]>()
        source.observable.buffer(count: 100, time: .seconds(1), scheduler: scheduler).subscribe(groups.handler)
        source.send(.next(1))
        source.send(.failed(TestFailure()))
        #expect(groups.elements == [[1]] && groups.error is TestFailure)
        scheduler.advance(by: .seconds(5))
        #expect(groups.elements == [[1]], "the timer of a finished group does nothing")
    }

    @Test func takeUntilEndsGracefullyAndLetsTheSourceGo() {
        let source = Source(), trigger = Subject<Void>(), received = Recorder<Int>()
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

    struct TestFailure: Error {}

    @Test func reconnectionWaitsTheServersRetryDoublingToThirtySecondsAndStartsOverWhenHealthy() {
        var reconnection = StreamReconnection()
        let noJitter = { (connected: Duration) in reconnection.delay(afterConnectedFor: connected, retryAfter: nil, random: 0) }
        #expect([noJitter(.zero), noJitter(.zero), noJitter(.zero)] == [.seconds(1), .seconds(2), .seconds(4)])
        for _ in 0..<10 { _ = noJitter(.zero) }
        #expect(noJitter(.zero) == .seconds(30), "at most 30 s")
        #expect(noJitter(.seconds(60)) == .seconds(1), "60 s connected: healthy again")
        reconnection = StreamReconnection()
        reconnection.serverDelay = .milliseconds(250)
        #expect(reconnection.delay(afterConnectedFor: .zero, retryAfter: nil, random: 1) == .milliseconds(125), "jitter takes up to half")
        #expect(reconnection.delay(afterConnectedFor: .zero, retryAfter: .seconds(7), random: 0) == .seconds(7), "Retry-After at least")
    }
}
