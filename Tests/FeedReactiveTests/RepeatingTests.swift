import FeedBase
import FeedReactive
import FeedTesting
import Synchronization
import Testing

/// `Observable.repeating`: the rounds of `follow`'s polled feeds and retried feeds, on a virtual
/// clock.
@Suite("Observable.repeating", .timeLimit(.minutes(3)))
struct RepeatingTests {
    @Test func roundsFollowEachOtherAfterTheirPauseUntilThePauseIsNil() {
        let scheduler = TestScheduler()
        let rounds = Mutex(0)
        let recorder = Recorder<Int>()
        let subscription = Observable<Int>.repeating(
            {
                .just(
                    rounds.withLock { rounds in
                        rounds += 1
                        return rounds
                    })
            }, pause: { rounds.withLock { $0 } < 3 ? .seconds(60) : nil }, scheduler: scheduler,
            until: Subject<Void>().observable
        )
        .subscribe(recorder.handler)
        #expect(recorder.elements == [1], "the first round at once")
        scheduler.advance(by: .seconds(59))
        #expect(recorder.elements == [1], "not before its pause")
        scheduler.advance(by: .seconds(1))
        #expect(recorder.elements == [1, 2])
        scheduler.advance(by: .seconds(60))
        #expect(recorder.elements == [1, 2, 3] && recorder.isCompleted, "a nil pause ends it")
        #expect(scheduler.requestedDelays == [.seconds(60), .seconds(60)])
        subscription.dispose()
    }

    @Test func untilEndsAWaitAtOnceButLetsARunningRoundFinish() {
        let scheduler = TestScheduler()
        let stop = Subject<Void>()
        let recorder = Recorder<Int>()
        let running = Subject<Int>()
        let rounds = Mutex(0)
        _ = Observable<Int>.repeating(
            {
                rounds.withLock { $0 += 1 }
                return running.observable
            }, pause: { .seconds(10) }, scheduler: scheduler, until: stop.observable
        ).subscribe(recorder.handler)
        stop.send(.completed)
        #expect(!recorder.isCompleted, "the round in progress goes on")
        running.send(.next(7))
        running.send(.completed)
        #expect(recorder.elements == [7] && recorder.isCompleted, "and no round after it")
        scheduler.advance(by: .seconds(60))
        #expect(rounds.withLock { $0 } == 1)

        let waiting = Recorder<Int>()
        let stopWaiting = Subject<Void>()
        _ = Observable<Int>.repeating(
            { .just(1) }, pause: { .seconds(10) }, scheduler: scheduler, until: stopWaiting.observable
        )
        .subscribe(waiting.handler)
        stopWaiting.send(.completed)
        #expect(waiting.elements == [1] && waiting.isCompleted, "a wait ends at once")
    }

    @Test func aRoundsFailureFailsTheWholeAndDisposingCancelsTheWait() {
        let scheduler = TestScheduler()
        let recorder = Recorder<Int>()
        _ = Observable<Int>.repeating(
            { .fail(TestError(id: 1)) }, pause: { .seconds(1) }, scheduler: scheduler,
            until: Subject<Void>().observable
        ).subscribe(recorder.handler)
        #expect(recorder.error as? TestError == TestError(id: 1))
        let rounds = Mutex(0)
        let quiet = Recorder<Int>()
        let subscription = Observable<Int>.repeating(
            {
                rounds.withLock { $0 += 1 }
                return .empty()
            }, pause: { .seconds(1) }, scheduler: scheduler, until: Subject<Void>().observable
        ).subscribe(quiet.handler)
        subscription.dispose()
        scheduler.advance(by: .seconds(5))
        #expect(rounds.withLock { $0 } == 1, "no round after disposal")
    }
}
