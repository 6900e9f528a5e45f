import FeedBase
import FoundationEssentials
import Synchronization

extension Observable {
    /// Maps each element to an observable and flattens the results by `strategy`.
    ///
    /// Termination: completes when the source has completed and every inner has completed. The
    /// first failure, of the source or of any inner, fails the result
    /// and disposes everything else. A thrown `transform` error is such a failure.
    ///
    /// Threading: inners may emit from different threads; the result's events are serialized (one
    /// at a time), and may be re-entrant on the same thread. Queued inners are started by a
    /// trampoline rather than by recursion, so a long `.concat` of synchronous inners does not grow
    /// the stack.
    public func flatMap<T: Sendable>(
        _ strategy: FlattenStrategy,
        _ transform: @escaping @Sendable (Element) throws -> Observable<T>
    ) -> Observable<T> {
        Observable<T> { observer in
            let limit: Int
            switch strategy {
            case .concat: limit = 1
            case .merge(let maxConcurrent): limit = max(1, maxConcurrent)
            }
            let flattener = Flattener<Element, T>(limit: limit, transform: transform, downstream: observer)
            flattener.outer.replace(with: self.subscribe { flattener.receiveOuter($0) })
            return flattener
        }
    }
}

/// The state of one `flatMap` subscription.
private final class Flattener<Source: Sendable, Element: Sendable>: Disposable {
    private struct State: ~Copyable {
        /// Outer elements in order; one whose inner has started is let go at once (nil), so
        /// nothing it holds (a stream's chunk and its `StreamReceipt`) outlives its turn.
        var pending: [Source?] = []
        var pendingStart = 0
        var active = 0
        var outerDone = false
        var isStopped = false
        var isDraining = false
    }

    let outer = SerialDisposable()
    /// Running inners (finished ones are let go, so a long merge does not grow).
    let inners = CompositeDisposable()
    private let state = Mutex(State())
    /// Serializes downstream events across inners; recursive because an event handler may cause
    /// the source to emit again on the same thread.
    private let emitting = RecursiveLock()
    private let limit: Int
    private let transform: @Sendable (Source) throws -> Observable<Element>
    private let downstream: Observer<Element>

    init(
        limit: Int, transform: @escaping @Sendable (Source) throws -> Observable<Element>, downstream: Observer<Element>
    ) {
        self.limit = limit
        self.transform = transform
        self.downstream = downstream
    }

    func receiveOuter(_ event: Event<Source>) {
        switch event {
        case .next(let element):
            state.withLock { $0.pending.append(element) }
            drain()
        case .failed(let error):
            stop(with: .failed(error))
        case .completed:
            state.withLock { $0.outerDone = true }
            drain()
        }
    }

    /// Starts queued inners while there is room, then completes if everything is done. Only one
    /// thread drains at a time; others leave their work to it.
    private func drain() {
        let canDrain = state.withLock { state -> Bool in
            if state.isDraining { return false }
            state.isDraining = true
            return true
        }
        guard canDrain else { return }
        while true {
            let step = state.withLock { state -> DrainStep in
                if !state.isStopped, state.active < limit, state.pendingStart < state.pending.count,
                    let next = state.pending[state.pendingStart]
                {
                    state.pending[state.pendingStart] = nil
                    state.pendingStart += 1
                    if state.pendingStart > 64, state.pendingStart * 2 > state.pending.count {
                        state.pending.removeFirst(state.pendingStart)
                        state.pendingStart = 0
                    }
                    state.active += 1
                    return .start(next)
                }
                state.isDraining = false
                let done =
                    state.outerDone && state.active == 0
                    && state.pendingStart == state.pending.count && !state.isStopped
                return done ? .finish : .idle
            }
            switch step {
            case .start(let element): start(element)
            case .finish: return stop(with: .completed)
            case .idle: return
            }
        }
    }

    private enum DrainStep {
        case start(Source)
        case finish, idle
    }

    private func start(_ element: Source) {
        let inner: Observable<Element>
        do {
            inner = try transform(element)
        } catch {
            return stop(with: .failed(error))
        }
        let key = inners.reserveKey()
        let subscription = inner.subscribe { [self] event in
            switch event {
            case .next(let value):
                emitting.withLock { downstream.next(value) }
            case .failed(let error):
                stop(with: .failed(error))
            case .completed:
                inners.remove(key)
                state.withLock { $0.active -= 1 }
                drain()
            }
        }
        inners.add(subscription, for: key)
    }

    private func stop(with event: Event<Element>) {
        let first = state.withLock { state -> Bool in
            defer { state.isStopped = true }
            return !state.isStopped
        }
        guard first else { return }
        emitting.withLock { downstream.send(event) }
        dispose()
    }

    func dispose() {
        state.withLock { $0.isStopped = true }
        outer.dispose()
        inners.dispose()
    }
}
