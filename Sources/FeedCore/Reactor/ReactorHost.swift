import Dispatch
import FeedBase
import FeedReactive
import FoundationEssentials
import Glibc

/// Runs a `Reactor`: takes actions, processes them one at a time, publishes state.
///
/// The streams, as ReactorKit wires them:
///
///     sent actions ─transform(action:)─▶ one at a time: mutate ─▶ transform(mutation:)
///         ─▶ scan(reduce) ─▶ transform(state:) ─▶ state observers
///
/// Each transform hook sees its whole stream once, for the host's life.
///
/// Ordering: actions are processed strictly one after another (`flatMap(.concat)`); an action's
/// mutations all reach `reduce` before the next action's `mutate` is subscribed, so mutations of
/// two actions never interleave (ReactorKit merges them).
///
/// Errors: a failure of `mutate` ends that action with `mutation(for:action:)` and processing
/// goes on with the next action.
///
/// Re-entrancy: an action sent from inside a state observer (or from inside `mutate`) is queued
/// and processed after the current action's mutations complete, never nested inside it (a
/// trampoline, not recursion). `run(_:)` must therefore not be called from a state observer: it
/// would wait for an action that cannot start until the observer returns.
///
/// Threading: `reduce` runs on whatever thread the mutation arrived on, one mutation at a time;
/// state observers are called right after, on that thread. `run(_:)` blocks its caller until the
/// action is done, so call it from a thread that may block (a CLI's main thread), not from Swift's
/// cooperative pool. `run` and `send`'s `done` know an action is done when every action the
/// `transform(action:)` hook made of it synchronously has had its mutations reduced; a transform
/// that delays actions or mutations is outside what they wait for.
public final class ReactorHost<R: Reactor>: Sendable {
    public let reactor: R
    private let actions = Subject<R.Action>()
    private let states = Subject<R.State>()
    /// The state: the one long-lived copy, changed in place by `reduce`.
    private let current: Locked<R.State>
    private let progress = Locked(Progress())
    /// Held while a mutation is reduced and its state published, and while a new observer takes
    /// the current state and joins, so an observer sees the current state and then every later
    /// one, none lost or doubled. Recursive: an observer may subscribe from inside its own
    /// callback.
    private let publishing = RecursiveLock()
    private let pipeline = SerialDisposable()

    /// Actions queued and finished, and who waits for the queue to drain.
    private struct Progress {
        var queued = 0
        var finished = 0
        var waiters: [@Sendable () -> Void] = []
    }

    public init(reactor: R) {
        self.reactor = reactor
        current = Locked(reactor.initialState)
        let progress = self.progress
        let mutations = reactor.transform(action: actions.observable)
            .handleEvents(onNext: { _ in progress.withLock { $0.queued += 1 } })
            .flatMap(.concat) { action in
                Observable<R.Mutation>.concat([
                    reactor.mutate(action: action).catch { error in .just(reactor.mutation(for: error, action: action))
                    },
                    // Reached once this action's mutations have all been reduced and published
                    // (the stages downstream run synchronously on the emitting thread).
                    .deferred {
                        let waiters = progress.withLock { progress -> [@Sendable () -> Void] in
                            progress.finished += 1
                            guard progress.finished == progress.queued else { return [] }
                            defer { progress.waiters = [] }
                            return progress.waiters
                        }
                        waiters.forEach { $0() }
                        return .empty()
                    },
                ])
            }
        let transformed = reactor.transform(mutation: mutations)
        let reduced = Observable<R.State> { [current, publishing] observer in
            transformed.subscribe { event in
                switch event {
                case .next(let mutation):
                    publishing.lock()
                    defer { publishing.unlock() }
                    let state = current.withLock { state -> R.State in
                        reactor.reduce(state: &state, mutation: mutation)
                        return state
                    }
                    observer.next(state)  // published below, synchronously, still under the lock
                case .failed(let error): observer.fail(error)
                case .completed: observer.complete()
                }
            }
        }
        pipeline.replace(
            with: reactor.transform(state: reduced).subscribe(onNext: { [states] state in
                states.send(.next(state))
            }))
    }

    deinit { pipeline.dispose() }

    /// The latest state.
    public var currentState: R.State { current.value }

    /// The current state, then every state after it, on the thread that produced it.
    public var state: Observable<R.State> {
        Observable { [current, states, publishing] observer in
            publishing.lock()
            defer { publishing.unlock() }
            observer.next(current.value)
            return states.observable.subscribe(observer.send)
        }
    }

    /// Queues `action`; `done` runs once its mutations (and those of every action queued before
    /// `done` could run) have all been reduced and published.
    public func send(_ action: R.Action, done: @escaping @Sendable () -> Void = {}) {
        actions.send(.next(action))
        let idle = progress.withLock { progress -> Bool in
            if progress.finished == progress.queued { return true }
            progress.waiters.append(done)
            return false
        }
        if idle { done() }
    }

    /// Sends `action`, blocks until it is processed, and returns the state then.
    @discardableResult
    public func run(_ action: R.Action) -> R.State {
        let finished = DispatchSemaphore(value: 0)
        send(action) { finished.signal() }
        finished.wait()
        return currentState
    }
}
