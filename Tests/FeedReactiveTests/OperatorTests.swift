import FeedBase
import FeedReactive
import FeedTesting
import Synchronization
import Testing

@Suite("Observable operators", .timeLimit(.minutes(3)))
struct OperatorTests {
    @Test func mapCompactMapFilterKeepOrder() {
        let recorder = Recorder<String>()
        Observable.from([1, 2, 3, 4, 5, 6])
            .filter { $0 % 2 == 0 }
            .compactMap { $0 == 4 ? nil : $0 }
            .map { "\($0)" }
            .subscribe(recorder.handler)
        #expect(recorder.elements == ["2", "6"])
        #expect(recorder.isCompleted)
    }

    @Test func mapThrowingFailsAndDisposesTheSource() {
        let teardowns = Mutex(0)
        let captured = Mutex<Observer<Int>?>(nil)
        let recorder = Recorder<Int>()
        Observable<Int> { observer in
            captured.withLock { $0 = observer }
            return Disposables.create { teardowns.withLock { $0 += 1 } }
        }
        .map { value -> Int in
            if value == 2 { throw TestError(id: 2) }
            return value
        }
        .subscribe(recorder.handler)
        let observer = captured.withLock { $0 }
        observer?.next(1)
        observer?.next(2)
        observer?.next(3)
        #expect(recorder.elements == [1])
        #expect(recorder.error as? TestError == TestError(id: 2))
        #expect(teardowns.withLock { $0 } == 1)
    }

    @Test func scanAccumulatesPerSubscription() {
        let source = Observable.from([1, 2, 3]).scan(0, +)
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        source.subscribe(first.handler)
        source.subscribe(second.handler)
        #expect(first.elements == [1, 3, 6])
        #expect(second.elements == [1, 3, 6])
    }

    @Test func handleEventsSeesEveryEventInOrder() {
        let log = Mutex<[String]>([])
        let subscription = Observable.from([1, 2])
            .handleEvents(
                onSubscribe: { log.withLock { $0.append("subscribe") } },
                onNext: { value in log.withLock { $0.append("next \(value)") } },
                onCompleted: { log.withLock { $0.append("completed") } },
                onDispose: { log.withLock { $0.append("dispose") } }
            )
            .handleEvents(onNext: { value in log.withLock { $0.append("do \(value)") } })
            .subscribe { _ in }
        subscription.dispose()
        #expect(log.withLock { $0 } == ["subscribe", "next 1", "do 1", "next 2", "do 2", "completed", "dispose"])

        let failures = Mutex(0)
        Observable<Int>.fail(TestError()).handleEvents(onFailed: { _ in failures.withLock { $0 += 1 } })
            .subscribe { _ in }
        #expect(failures.withLock { $0 } == 1)
    }

    @Test func catchContinuesWithTheReplacement() {
        let recorder = Recorder<Int>()
        Observable.concat([.just(1), .fail(TestError(id: 1))])
            .catch { error in .just((error as? TestError)?.id == 1 ? 99 : -1) }
            .subscribe(recorder.handler)
        #expect(recorder.elements == [1, 99])
        #expect(recorder.isCompleted)

        let rethrown = Recorder<Int>()
        Observable<Int>.fail(TestError(id: 1)).catch { _ in throw TestError(id: 2) }.subscribe(rethrown.handler)
        #expect(rethrown.error as? TestError == TestError(id: 2))
    }

    /// Regression: a synchronous failure installed the replacement before `subscribe` returned, and
    /// the source's subscription then displaced (disposed) the still-running replacement.
    @Test func catchKeepsAnAsynchronousReplacementAlive() {
        let scheduler = TestScheduler()
        let recorder = Recorder<Int>()
        Observable<Int>.fail(TestError())
            .catch { _ in delayed(5, by: .seconds(1), on: scheduler) }
            .subscribe(recorder.handler)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.elements == [5])
        #expect(recorder.isCompleted)
    }

    @Test func flatMapConcatWaitsForEachInner() {
        let scheduler = TestScheduler()
        let recorder = Recorder<String>()
        Observable.from([3, 1, 2])
            .flatMap(.concat) { n in delayed("\(n)", by: .seconds(n), on: scheduler) }
            .subscribe(recorder.handler)
        scheduler.advance(by: .seconds(3))
        #expect(recorder.elements == ["3"])
        scheduler.advance(by: .seconds(1))
        #expect(recorder.elements == ["3", "1"])
        #expect(!recorder.isCompleted)
        scheduler.advance(by: .seconds(2))
        #expect(recorder.elements == ["3", "1", "2"])
        #expect(recorder.isCompleted)
    }

    /// An outer element is let go as soon as its inner starts: a stream's chunk carries the
    /// receipt of its bytes (`StreamBacklog`), and elements kept until 64 more had passed held
    /// a megabyte of receipts, so a `follow` whose backlog was that small waited forever.
    @Test func flatMapLetsGoOfEachOuterElementOnceItsInnerHasStarted() {
        final class Held: Sendable {}
        let subject = Subject<Held>()
        let recorder = Recorder<Int>()
        let subscription = subject.observable.flatMap(.concat) { _ in Observable.just(1) }.subscribe(recorder.handler)
        weak var first: Held?
        weak var second: Held?
        do {
            let one = Held()
            let two = Held()
            first = one
            second = two
            subject.send(.next(one))
            subject.send(.next(two))
        }
        #expect(recorder.elements == [1, 1])
        #expect(first == nil && second == nil, "nothing keeps an element whose inner has run")
        subscription.dispose()
    }

    @Test func flatMapMergeRespectsMaxConcurrent() {
        let scheduler = TestScheduler()
        let active = Mutex((now: 0, peak: 0))
        let recorder = Recorder<Int>()
        Observable.from([4, 1, 1, 1])
            .flatMap(.merge(maxConcurrent: 2)) { n in
                delayed(n, by: .seconds(n), on: scheduler).handleEvents(
                    onSubscribe: {
                        active.withLock {
                            $0.now += 1
                            $0.peak = max($0.peak, $0.now)
                        }
                    },
                    onCompleted: { active.withLock { $0.now -= 1 } })
            }
            .subscribe(recorder.handler)
        scheduler.advance(by: .seconds(3))
        #expect(recorder.elements == [1, 1, 1], "short inners pass the long one")
        scheduler.advance(by: .seconds(1))
        #expect(recorder.elements == [1, 1, 1, 4])
        #expect(active.withLock { $0.peak } == 2)
        #expect(recorder.isCompleted)
    }

    @Test func flatMapFailsOnTheFirstInnerFailureAndDisposesTheRest() {
        let scheduler = TestScheduler()
        let disposed = Mutex(0)
        let recorder = Recorder<Int>()
        Observable.from([1, 2])
            .flatMap(.merge(maxConcurrent: 4)) { n -> Observable<Int> in
                n == 2
                    ? .fail(TestError(id: 2))
                    : delayed(n, by: .seconds(1), on: scheduler).handleEvents(onDispose: {
                        disposed.withLock { $0 += 1 }
                    })
            }
            .subscribe(recorder.handler)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.elements.isEmpty)
        #expect(recorder.error as? TestError == TestError(id: 2))
        #expect(disposed.withLock { $0 } == 1)
    }

    @Test func retryResubscribesWithBackoffThenGivesUp() {
        let scheduler = TestScheduler()
        let attempts = Mutex(0)
        let recorder = Recorder<Int>()
        let source = Observable<Int>.deferred {
            attempts.withLock { $0 += 1 }
            return .fail(TestError(id: 1))
        }
        source
            .retry(
                RetryPolicy(maxRetries: 3, base: .seconds(1), cap: .seconds(3)),
                scheduler: scheduler, random: { 1.0 }
            )
            .subscribe(recorder.handler)
        #expect(attempts.withLock { $0 } == 1)
        scheduler.advance(by: .seconds(10))
        #expect(attempts.withLock { $0 } == 4, "one attempt and three retries")
        #expect(scheduler.requestedDelays == [.seconds(1), .seconds(2), .seconds(3)], "exponential, capped")
        #expect(recorder.error as? TestError == TestError(id: 1))
    }

    @Test func retryUsesFullJitterAndStopsOnSuccess() {
        let scheduler = TestScheduler()
        let attempts = Mutex(0)
        let recorder = Recorder<Int>()
        Observable<Int>.deferred {
            let n = attempts.withLock {
                $0 += 1
                return $0
            }
            return n < 3 ? .fail(TestError()) : .just(n)
        }
        .retry(RetryPolicy(maxRetries: 5, base: .seconds(2)), scheduler: scheduler, random: { 0.25 })
        .subscribe(recorder.handler)
        scheduler.advance(by: .seconds(60))
        #expect(recorder.elements == [3] && recorder.isCompleted)
        #expect(scheduler.requestedDelays == [.milliseconds(500), .seconds(1)])
    }

    @Test func retrySkipsFailuresThePolicyRejects() {
        let scheduler = TestScheduler()
        let attempts = Mutex(0)
        let recorder = Recorder<Int>()
        Observable<Int>.deferred {
            attempts.withLock { $0 += 1 }
            return .fail(TestError(id: 4))
        }
        .retry(RetryPolicy(maxRetries: 5, shouldRetry: { ($0 as? TestError)?.id != 4 }), scheduler: scheduler)
        .subscribe(recorder.handler)
        scheduler.advance(by: .seconds(60))
        #expect(attempts.withLock { $0 } == 1)
        #expect(recorder.error as? TestError == TestError(id: 4))
    }

    @Test func retryHonoursAMinimumDelayAndDisposalCancelsTheWait() {
        let scheduler = TestScheduler()
        let attempts = Mutex(0)
        let subscription = Observable<Int>.deferred {
            attempts.withLock { $0 += 1 }
            return .fail(TestError())
        }
        .retry(
            RetryPolicy(maxRetries: 2, base: .seconds(1), cap: .seconds(30), minimumDelay: { _ in .seconds(7) }),
            scheduler: scheduler, random: { 0 }
        )
        .subscribe { _ in }
        #expect(scheduler.requestedDelays == [.seconds(7)])
        subscription.dispose()
        scheduler.advance(by: .seconds(60))
        #expect(attempts.withLock { $0 } == 1)
    }
}

/// Emits `value` after `delay` on `scheduler`, then completes.
func delayed<T: Sendable>(_ value: T, by delay: Duration, on scheduler: TestScheduler) -> Observable<T> {
    Observable { observer in
        scheduler.schedule(after: delay) {
            observer.next(value)
            observer.complete()
        }
    }
}

/// A scheduler whose timers cannot be cancelled once armed, as a dispatch timer that has
/// already started running its block.
private final class UncancellableScheduler: Scheduler {
    let armed = Locked<[@Sendable () -> Void]>([])
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        armed.withLock { $0.append(action) }
        return Disposables.empty
    }
}

@Suite("retry and disposal", .timeLimit(.minutes(3)))
struct RetryDisposalTests {
    /// Regression: a backoff wait that fired as the subscriber gave up subscribed again (sent
    /// one more request after the run had ended).
    @Test func noAttemptStartsAfterDisposal() {
        let subscriptions = Locked(0)
        let source = Observable<Int> { observer in
            subscriptions.withLock { $0 += 1 }
            observer.fail(TestError())
            return Disposables.empty
        }
        let scheduler = UncancellableScheduler()
        let subscription = source.retry(RetryPolicy(maxRetries: 3), scheduler: scheduler, random: { 0 }).subscribe {
            _ in
        }
        #expect(subscriptions.value == 1)
        subscription.dispose()
        for action in scheduler.armed.value { action() }
        #expect(subscriptions.value == 1, "the wait fired after disposal and must not subscribe again")
    }
}
