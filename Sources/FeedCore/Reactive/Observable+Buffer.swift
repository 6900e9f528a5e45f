import FeedBase
import FoundationEssentials
import Synchronization

extension Observable {
    /// The source's elements in groups, in order: a group is emitted when it holds `count`
    /// elements or `time` after its first element arrived, whichever comes first, and what is
    /// held is emitted before the source's completion or failure is passed on. Never emits an
    /// empty group.
    ///
    /// Threading: a group ended by time is emitted from `scheduler`'s thread; emissions never
    /// overlap (one lock serializes them).
    public func buffer(count: Int, time: Duration, scheduler: any Scheduler) -> Observable<[Element]> {
        Observable<[Element]> { observer in
            let buffer = Buffer<Element>(count: max(1, count), time: time, scheduler: scheduler, downstream: observer)
            buffer.source.replace(with: self.subscribe { buffer.receive($0) })
            return buffer
        }
    }
}

/// The state of one `buffer` subscription.
private final class Buffer<Element: Sendable>: Disposable {
    private struct State {
        var held: [Element] = []
        /// Counts groups, so that a timer set for an earlier group does nothing.
        var generation = 0
        var timer: (any Disposable)?
        var isStopped = false
    }

    let source = SerialDisposable()
    private let state = Mutex(State())
    /// Serializes emissions: the source's thread and the timer's.
    private let emitting = RecursiveLock()
    private let count: Int
    private let time: Duration
    private let scheduler: any Scheduler
    private let downstream: Observer<[Element]>

    init(count: Int, time: Duration, scheduler: any Scheduler, downstream: Observer<[Element]>) {
        self.count = count
        self.time = time
        self.scheduler = scheduler
        self.downstream = downstream
    }

    func receive(_ event: Event<Element>) {
        emitting.lock()
        defer { emitting.unlock() }
        switch event {
        case .next(let element):
            let (full, startsGroup, generation) = state.withLock { state -> ([Element]?, Bool, Int) in
                guard !state.isStopped else { return (nil, false, 0) }
                state.held.append(element)
                if state.held.count >= count { return (take(&state), false, 0) }
                return (nil, state.held.count == 1, state.generation)
            }
            if let full { downstream.next(full) }
            if startsGroup {
                let timer = scheduler.schedule(after: time) { [self] in flush(generation: generation) }
                let stale = state.withLock { state -> Bool in
                    guard state.generation == generation, !state.isStopped else { return true }
                    state.timer = timer
                    return false
                }
                if stale { timer.dispose() }
            }
        case .failed, .completed:
            let rest = state.withLock { state -> [Element]? in
                guard !state.isStopped else { return nil }
                defer { state.isStopped = true }
                return take(&state)
            }
            guard let rest else { return }
            if !rest.isEmpty { downstream.next(rest) }
            if case .failed(let error) = event { downstream.fail(error) } else { downstream.complete() }
        }
    }

    /// The held group, and a new generation (its timer, if any, is let go).
    private func take(_ state: inout State) -> [Element] {
        defer {
            state.held = []
            state.generation &+= 1
            state.timer?.dispose()
            state.timer = nil
        }
        return state.held
    }

    private func flush(generation: Int) {
        emitting.lock()
        defer { emitting.unlock() }
        let group = state.withLock { state -> [Element]? in
            guard state.generation == generation, !state.isStopped, !state.held.isEmpty else { return nil }
            return take(&state)
        }
        if let group { downstream.next(group) }
    }

    func dispose() {
        let timer = state.withLock { state -> (any Disposable)? in
            state.isStopped = true
            defer { state.timer = nil }
            return state.timer
        }
        timer?.dispose()
        source.dispose()
    }
}
