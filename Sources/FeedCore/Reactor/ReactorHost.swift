import Dispatch
import Foundation

/// Runs a `Reactor`: takes actions, processes them one at a time, publishes state.
///
/// Ordering: actions are processed strictly one after another (`flatMap(.concat)`); an action's
/// mutations all reach `reduce` before the next action's `mutate` is subscribed, so mutations of
/// two actions never interleave (ReactorKit's merge did, for years of bugs).
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
/// cooperative pool.
public final class ReactorHost<R: Reactor>: Sendable {
    private struct Request: Sendable {
        let action: R.Action
        let done: @Sendable () -> Void
    }

    public let reactor: R
    private let requests = Subject<Request>()
    private let states = Subject<R.State>()
    private let current: Locked<R.State>
    /// Held while a state is published and while a new observer takes the current state and
    /// joins, so an observer sees the current state and then every later one, none lost or
    /// doubled. Recursive: an observer may subscribe from inside its own callback.
    private let publishing = NSRecursiveLock()
    private let pipeline = SerialDisposable()

    public init(reactor: R) {
        self.reactor = reactor
        current = Locked(reactor.initialState)
        let mutations = requests.observable.flatMap(.concat) { request in
            Observable<R.Mutation>.concat([
                reactor.transform(mutation: reactor.transform(action: .just(request.action))
                    .flatMap(.concat) { reactor.mutate(action: $0) })
                    .catch { error in .just(reactor.mutation(for: error, action: request.action)) },
                .deferred {
                    request.done()
                    return .empty()
                },
            ])
        }
        let stateStream = reactor.transform(state: mutations.scan(reactor.initialState) { state, mutation in
            reactor.reduce(state: state, mutation: mutation)
        })
        pipeline.replace(with: stateStream.subscribe(onNext: { [current, states, publishing] state in
            publishing.lock()
            defer { publishing.unlock() }
            _ = current.update { _ in state }
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

    /// Queues `action`; `done` runs once its mutations have all been reduced and published.
    public func send(_ action: R.Action, done: @escaping @Sendable () -> Void = {}) {
        requests.send(.next(Request(action: action, done: done)))
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
