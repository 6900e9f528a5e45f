import FeedBase
import FeedReactive
import FeedReactor
import FeedStore
import FeedStoreContract
import FeedTesting
import Foundation
import Testing

/// A reactor whose actions take time on a real queue, recording the order of its work.
private struct CounterReactor: Reactor {
    enum Action: Sendable {
        case add(Int, delay: Double)
        case fail, sendFromObserver
    }
    enum Mutation: Sendable, Equatable {
        case began(Int)
        case added(Int)
        case ended(Int)
        case failed(String)
    }
    struct State: Sendable, Equatable {
        var total = 0
        var log: [Mutation] = []
    }

    let initialState = State()

    func mutate(action: Action) -> Observable<Mutation> {
        switch action {
        case .add(let n, let delay):
            return Observable { observer in
                observer.next(.began(n))
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                    observer.next(.added(n))
                    observer.next(.ended(n))
                    observer.complete()
                }
                return Disposables.empty
            }
        case .fail:
            return .concat([.just(.began(-1)), .fail(TestError(id: 42))])
        case .sendFromObserver:
            return .just(.began(0))
        }
    }

    func reduce(state: inout State, mutation: Mutation) {
        state.log.append(mutation)
        if case .added(let n) = mutation { state.total += n }
    }

    func mutation(for error: any Error, action: Action) -> Mutation {
        .failed("\(error)")
    }
}

@Suite("ReactorHost", .timeLimit(.minutes(3)))
struct ReactorHostTests {
    @Test func processesActionsOneAtATimeInOrder() async {
        let host = ReactorHost(reactor: CounterReactor())
        host.send(.add(1, delay: 0.15))
        let state = await host.process(.add(2, delay: 0.01))
        #expect(
            state.log == [.began(1), .added(1), .ended(1), .began(2), .added(2), .ended(2)],
            "the second action waits although it would finish first")
        #expect(state.total == 3)
    }

    @Test func anErrorBecomesStateAndProcessingGoesOn() async {
        let host = ReactorHost(reactor: CounterReactor())
        let failed = await host.process(.fail)
        #expect(failed.log == [.began(-1), .failed("TestError(id: 42)")])
        let after = await host.process(.add(5, delay: 0))
        #expect(after.total == 5)
    }

    @Test func anActionSentFromAStateObserverIsQueuedNotNested() async {
        let host = ReactorHost(reactor: CounterReactor())
        let sent = Locked(false)
        let subscription = host.state.subscribe(onNext: { state in
            guard state.log.last == .began(0) else { return }
            let first = sent.withLock { was -> Bool in
                defer { was = true }
                return !was
            }
            if first {
                host.send(.add(7, delay: 0))
            }
        })
        let finished = TestSignal()
        host.send(.sendFromObserver)
        host.send(.add(1, delay: 0)) { finished.signal() }
        #expect(await finished.wait(seconds: 30))
        #expect(
            host.currentState.log == [.began(0), .began(7), .added(7), .ended(7), .began(1), .added(1), .ended(1)],
            "the observer's action runs after the current one, before later ones, never inside it")
        subscription.dispose()
    }

    @Test func stateObserversSeeTheCurrentStateThenEveryChange() async {
        let host = ReactorHost(reactor: CounterReactor())
        let totals = Locked<[Int]>([])
        let subscription = host.state.subscribe(onNext: { state in totals.withLock { $0.append(state.total) } })
        await host.process(.add(2, delay: 0))
        #expect(totals.value == [0, 0, 2, 2])
        subscription.dispose()
    }
}

/// A reactor that counts, publishing each count from another thread.
private struct TickingReactor: Reactor {
    let initialState = 0
    func mutate(action: Int) -> Observable<Int> {
        Observable { observer in
            DispatchQueue.global().async {
                for _ in 0..<action { observer.next(1) }
                observer.complete()
            }
            return Disposables.empty
        }
    }
    func reduce(state: inout Int, mutation: Int) { state += mutation }
    func mutation(for error: any Error, action: Int) -> Int { 0 }
}

@Suite("ReactorHost.state under concurrency", .timeLimit(.minutes(3)))
struct ReactorHostStateTests {
    /// Regression: `state` emitted the current state and then subscribed, so a state published
    /// in between was lost to the new observer.
    @Test(.timeLimit(.minutes(1))) func aNewObserverSeesTheCurrentStateThenEveryLaterOne() async {
        let host = ReactorHost(reactor: TickingReactor())
        let finished = TestSignal()
        host.send(3_000) { finished.signal() }
        let gaps = Locked(0)
        var subscriptions: [any Disposable] = []
        for _ in 0..<40 {
            let last = Locked<Int?>(nil)
            subscriptions.append(
                host.state.subscribe(onNext: { value in
                    last.withLock { previous in
                        if let previous, value != previous + 1 { gaps.withLock { $0 += 1 } }
                        previous = value
                    }
                }))
        }
        #expect(await finished.wait(seconds: 30))
        subscriptions.forEach { $0.dispose() }
        #expect(gaps.value == 0)
    }
}
