import Dispatch
import FeedBase
import FeedReactive
import FeedTesting
import Synchronization
import Testing

@Suite("Observable: creation, grammar, disposal", .timeLimit(.minutes(3)))
struct ObservableTests {
    @Test func producerRunsOncePerSubscription() {
        let runs = Mutex(0)
        let source = Observable<Int> { observer in
            runs.withLock { $0 += 1 }
            observer.next(1)
            observer.complete()
            return Disposables.empty
        }
        #expect(runs.withLock { $0 } == 0, "nothing runs before subscribe")
        source.subscribe { _ in }
        source.subscribe { _ in }
        #expect(runs.withLock { $0 } == 2)
    }

    @Test func nothingIsDeliveredAfterATerminalEvent() {
        let recorder = Recorder<Int>()
        Observable<Int> { observer in
            observer.next(1)
            observer.complete()
            observer.next(2)
            observer.fail(TestError())
            observer.complete()
            return Disposables.empty
        }.subscribe(recorder.handler)
        #expect(recorder.elements == [1])
        #expect(recorder.isCompleted)
        #expect(recorder.terminalCount == 1)
    }

    @Test func nothingIsDeliveredAfterDisposal() {
        let captured = Mutex<Observer<Int>?>(nil)
        let recorder = Recorder<Int>()
        let subscription = Observable<Int> { observer in
            captured.withLock { $0 = observer }
            return Disposables.empty
        }.subscribe(recorder.handler)
        let observer = captured.withLock { $0 }
        observer?.next(1)
        subscription.dispose()
        observer?.next(2)
        observer?.complete()
        #expect(recorder.elements == [1])
        #expect(!recorder.isTerminated)
    }

    @Test func teardownRunsExactlyOnceOnDisposal() {
        let teardowns = Mutex(0)
        let subscription = Observable<Int> { _ in
            Disposables.create { teardowns.withLock { $0 += 1 } }
        }.subscribe { _ in }
        subscription.dispose()
        subscription.dispose()
        #expect(teardowns.withLock { $0 } == 1)
    }

    @Test func teardownRunsExactlyOnceOnTerminationThenDisposal() {
        let teardowns = Mutex(0)
        let captured = Mutex<Observer<Int>?>(nil)
        let subscription = Observable<Int> { observer in
            captured.withLock { $0 = observer }
            return Disposables.create { teardowns.withLock { $0 += 1 } }
        }.subscribe { _ in }
        captured.withLock { $0 }?.complete()
        #expect(teardowns.withLock { $0 } == 1)
        subscription.dispose()
        #expect(teardowns.withLock { $0 } == 1)
    }

    @Test func teardownOfASynchronousProducerRunsAtOnce() {
        let teardowns = Mutex(0)
        Observable<Int> { observer in
            observer.complete()
            return Disposables.create { teardowns.withLock { $0 += 1 } }
        }.subscribe { _ in }
        #expect(teardowns.withLock { $0 } == 1)
    }

    @Test func justEmptyFail() {
        let just = Recorder<Int>()
        Observable.just(7).subscribe(just.handler)
        #expect(just.elements == [7] && just.isCompleted)

        let empty = Recorder<Int>()
        Observable<Int>.empty().subscribe(empty.handler)
        #expect(empty.elements.isEmpty && empty.isCompleted)

        let failed = Recorder<Int>()
        Observable<Int>.fail(TestError(id: 3)).subscribe(failed.handler)
        #expect(failed.error as? TestError == TestError(id: 3))
    }

    @Test func deferredBuildsAtSubscriptionTime() {
        let counter = Mutex(0)
        let source = Observable<Int>.deferred {
            .just(
                counter.withLock {
                    $0 += 1
                    return $0
                })
        }
        #expect(counter.withLock { $0 } == 0)
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        source.subscribe(first.handler)
        source.subscribe(second.handler)
        #expect(first.elements == [1])
        #expect(second.elements == [2])

        let throwing = Recorder<Int>()
        Observable<Int>.deferred { throw TestError(id: 9) }.subscribe(throwing.handler)
        #expect(throwing.error as? TestError == TestError(id: 9))
    }

    @Test func concatRunsInOrderAndOneAtATime() {
        let subscribed = Mutex<[Int]>([])
        func source(_ n: Int) -> Observable<Int> {
            .deferred {
                subscribed.withLock { $0.append(n) }
                return .from([n * 10, n * 10 + 1])
            }
        }
        let recorder = Recorder<Int>()
        Observable.concat([source(1), source(2), source(3)]).subscribe(recorder.handler)
        #expect(recorder.elements == [10, 11, 20, 21, 30, 31])
        #expect(subscribed.withLock { $0 } == [1, 2, 3])
        #expect(recorder.isCompleted)
    }

    @Test func concatStopsAtTheFirstFailure() {
        let recorder = Recorder<Int>()
        let laterRan = Mutex(false)
        Observable.concat([
            .just(1), .fail(TestError(id: 1)),
            .deferred {
                laterRan.withLock { $0 = true }
                return .just(3)
            },
        ]).subscribe(recorder.handler)
        #expect(recorder.elements == [1])
        #expect(recorder.error as? TestError == TestError(id: 1))
        #expect(!laterRan.withLock { $0 })
    }

    @Test func longSynchronousConcatDoesNotGrowTheStack() {
        let recorder = Recorder<Int>()
        Observable.concat((0..<20_000).map { Observable.just($0) }).subscribe(recorder.handler)
        #expect(recorder.elements.count == 20_000)
        #expect(recorder.isCompleted)
    }

    /// Observables completing on other threads, some before `concat`'s loop has left (a race the
    /// loop must hand over, not lose), still run one at a time, in order, each once.
    @Test func concatOfObservablesCompletingOnOtherThreadsRunsEachOnceInOrder() async {
        let queue = DispatchQueue(label: "concat-test", attributes: .concurrent)
        func later(_ n: Int) -> Observable<Int> {
            Observable { observer in
                queue.async {
                    observer.next(n)
                    observer.complete()
                }
                return Disposables.empty
            }
        }
        for _ in 0..<200 {
            let recorder = Recorder<Int>()
            let parts = (0..<20).map { $0 % 3 == 0 ? Observable.just($0) : later($0) }
            Observable.concat(parts).subscribe(recorder.handler)
            #expect(await recorder.wait())
            #expect(recorder.elements == Array(0..<20))
            #expect(recorder.isCompleted)
        }
    }

    /// Disposed while one observable runs, `concat` disposes it and never subscribes to the rest.
    @Test func concatDisposedMidwayStartsNothingMore() {
        let subject = Subject<Int>()
        let laterRan = Mutex(false)
        let recorder = Recorder<Int>()
        let subscription = Observable.concat([
            .just(1), subject.observable,
            .deferred {
                laterRan.withLock { $0 = true }
                return .just(3)
            },
        ]).subscribe(recorder.handler)
        subject.send(.next(2))
        subscription.dispose()
        subject.send(.completed)
        #expect(recorder.elements == [1, 2])
        #expect(!recorder.isCompleted)
        #expect(!laterRan.withLock { $0 })
    }

    @Test func compositeLetsFinishedMembersGoAndDisposesTheRest() {
        let disposed = Locked<[String]>([])
        func member(_ name: String) -> any Disposable {
            Disposables.create { disposed.withLock { $0.append(name) } }
        }
        let composite = CompositeDisposable()
        composite.add(member("a"))
        let finished = composite.reserveKey()
        composite.add(member("b"), for: finished)
        composite.remove(finished)
        let early = composite.reserveKey()
        composite.remove(early)  // finished before it was added (a synchronous subscription)
        composite.add(member("c"), for: early)
        composite.dispose()
        #expect(disposed.value == ["a"], "removed members are let go, not disposed")
        composite.add(member("late"))
        #expect(disposed.value == ["a", "late"], "after disposal, additions are disposed at once")
    }

    @Test func subjectMulticastsAndReplaysOnlyTheTerminalEvent() {
        let subject = Subject<Int>()
        let first = Recorder<Int>()
        let subscription = subject.observable.subscribe(first.handler)
        subject.send(.next(1))
        let second = Recorder<Int>()
        subject.observable.subscribe(second.handler)
        subject.send(.next(2))
        subscription.dispose()
        subject.send(.next(3))
        subject.send(.completed)
        let late = Recorder<Int>()
        subject.observable.subscribe(late.handler)
        #expect(first.elements == [1, 2])
        #expect(second.elements == [2, 3] && second.isCompleted)
        #expect(late.elements.isEmpty && late.isCompleted)
    }

    @Test func observeOnCarriesEventsThatArriveTogetherInOneHop() {
        let queue = DispatchQueue(label: "observe-on test")
        let log = Mutex<[String]>([])
        let captured = Mutex<Observer<Int>?>(nil)
        let source = Observable<Int> { observer in
            captured.withLock { $0 = observer }
            return Disposables.empty
        }
        let subscription = source.observe(on: queue).subscribe { event in
            switch event {
            case .next(let value): log.withLock { $0.append("\(value)") }
            case .completed: log.withLock { $0.append("completed") }
            case .failed: log.withLock { $0.append("failed") }
            }
        }
        queue.suspend()  // events wait for the queue, as they do behind a busy reactor
        let observer = captured.withLock { $0 }
        observer?.next(1)
        queue.async { log.withLock { $0.append("other work") } }
        observer?.next(2)
        observer?.complete()
        queue.resume()
        queue.sync {}
        // 2 and the completion joined the hop 1 scheduled, ahead of work queued after it; one
        // hop an event would put "other work" between 1 and 2.
        #expect(log.withLock { $0 } == ["1", "2", "completed", "other work"])
        subscription.dispose()
    }

    @Test func observeOnJoiningMakesOneElementOfThoseThatWaitedTogether() {
        let queue = DispatchQueue(label: "observe-on joining test")
        let received = Recorder<[Int]>()
        let captured = Mutex<Observer<[Int]>?>(nil)
        let joins = Mutex(0)
        let subscription = Observable<[Int]> { observer in
            captured.withLock { $0 = observer }
            return Disposables.empty
        }.observe(
            on: queue,
            joiningWaiting: { waiting in
                joins.withLock { $0 += 1 }
                return Array(waiting.joined())
            }
        ).subscribe(received.handler)
        let observer = captured.withLock { $0 }
        observer?.next([1])
        queue.sync {}  // crossed alone: nothing waited with it
        queue.suspend()  // the consumer is busy: what arrives waits
        observer?.next([2])
        observer?.next([3, 4])
        observer?.next([5])
        observer?.complete()
        queue.resume()
        queue.sync {}
        #expect(received.elements == [[1], [2, 3, 4, 5]], "the three that waited crossed as one")
        #expect(received.isCompleted, "the end after them")
        #expect(joins.withLock { $0 } == 1, "an element alone is not joined")
        subscription.dispose()
    }

    @Test func observeOnDeliversNothingWaitingAfterDisposal() {
        let queue = DispatchQueue(label: "observe-on disposal test")
        let received = Recorder<Int>()
        let captured = Mutex<Observer<Int>?>(nil)
        let subscription = Observable<Int> { observer in
            captured.withLock { $0 = observer }
            return Disposables.empty
        }.observe(on: queue).subscribe(received.handler)
        queue.suspend()
        captured.withLock { $0 }?.next(1)
        subscription.dispose()
        queue.resume()
        queue.sync {}
        #expect(received.elements.isEmpty)
    }
}
