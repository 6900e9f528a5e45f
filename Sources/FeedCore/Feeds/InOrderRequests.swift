import FeedBase
import FeedHTTP
import FeedReactive
import FoundationEssentials

/// Requests indices `start…` through `request`, up to `inFlight` at once in a sliding window (a
/// new request starts as soon as one finishes, not when a whole window has), and emits each
/// answer in index order. Ends at the first 404 (not emitted; requests beyond it are cancelled)
/// or after `count` requests. With `probesFirst`, the first request goes alone, and the window
/// opens only once it has answered with something other than a 404.
///
/// Threading: `request`'s answers may arrive on any thread (the HTTP client's own: see
/// `FeedFetching.getAsAnswered`); there the window is refilled at once, and the answers are
/// emitted through `handOver` (to the work queue). So requests go on while the consumer is busy
/// with what it was given before (a batch's commit: on PostgreSQL three round trips, during
/// which a window refilled only by the consumer stood empty), up to `lookahead` answers ahead of
/// it, which bounds what waits in memory.
package struct InOrderRequests: Sendable {
    package let start: Int
    package let count: Int
    package let inFlight: Int
    package let probesFirst: Bool
    /// How many answers may wait for the consumer, beyond the requests in flight.
    package let lookahead: Int
    package let request: @Sendable (Int) -> Observable<HTTPResponse>
    /// Where answers are emitted from (`FeedFetching.handOver`).
    package let handOver: @Sendable (Observable<Void>) -> Observable<Void>

    package var observable: Observable<(Int, HTTPResponse)> {
        Observable { observer in
            let run = InOrderRun(self, downstream: observer)
            run.begin()
            return run
        }
    }
}

/// One subscription of `InOrderRequests`.
private final class InOrderRun: Disposable {
    private struct State {
        var nextToRequest: Int
        var nextToEmit: Int
        /// Answers not emitted yet, by index (out of order ones wait for those before them).
        var answers: [Int: HTTPResponse] = [:]
        var active = 0
        var limit: Int
        /// The lowest index that answered 404: nothing at or beyond it is requested or emitted.
        var end: Int
        var failure: (any Error)?
        var isStopped = false
    }

    private let spec: InOrderRequests
    private let downstream: Observer<(Int, HTTPResponse)>
    private let state: Locked<State>
    private let requests = CompositeDisposable()
    /// Taken around taking answers out in order and emitting them, so emissions keep index
    /// order; recursive because a synchronous request (tests) answers inside `pump`, and its
    /// emission runs inside the one that started it.
    private let emitting = RecursiveLock()

    init(_ spec: InOrderRequests, downstream: Observer<(Int, HTTPResponse)>) {
        self.spec = spec
        self.downstream = downstream
        state = Locked(
            State(
                nextToRequest: spec.start, nextToEmit: spec.start,
                limit: spec.probesFirst ? 1 : max(1, spec.inFlight), end: Self.end(spec)))
    }

    /// The first index not to request: `start + count`, saturating (both come from outside: a
    /// stored `next_index`, `--max-pages`), so no index reaches `Int.max` and none passes it.
    private static func end(_ spec: InOrderRequests) -> Int {
        let (end, overflow) = spec.start.addingReportingOverflow(max(0, spec.count))
        return overflow ? Int.max : end
    }

    func begin() {
        pump()
        emit()
    }

    /// Has `emit` run where `spec.handOver` delivers. Each answer signals on its own (several
    /// threads may answer; a signal that finds nothing new to emit does nothing).
    private func signal() {
        _ = spec.handOver(.just(())).subscribe { [self] event in
            if case .next = event { emit() }
        }
    }

    /// Starts requests while the window has room and the answers waiting for the consumer
    /// leave some.
    private func pump() {
        while true {
            let index = state.withLock { state -> Int? in
                guard !state.isStopped, state.failure == nil, state.active < state.limit,
                    state.active + state.answers.count < state.limit + spec.lookahead,
                    state.nextToRequest < state.end
                else { return nil }
                defer {
                    state.nextToRequest += 1
                    state.active += 1
                }
                return state.nextToRequest
            }
            guard let index else { return }
            let key = requests.reserveKey()
            requests.add(
                spec.request(index).subscribe { [self] event in receive(event, index: index, key: key) }, for: key)
        }
    }

    /// An answer, where it arrives: recorded, the window refilled, the consumer told.
    private func receive(_ event: Event<HTTPResponse>, index: Int, key: CompositeDisposable.Key) {
        switch event {
        case .next(let response):
            state.withLock { state in
                if response.status == 404 {
                    state.end = min(state.end, index)
                } else {
                    state.answers[index] = response
                    state.limit = max(1, spec.inFlight)
                }
            }
        case .failed(let error):
            state.withLock { state in
                state.active -= 1
                if state.failure == nil { state.failure = error }
            }
            signal()
        case .completed:
            requests.remove(key)
            state.withLock { $0.active -= 1 }
            pump()
            signal()
        }
    }

    /// What `emit` does next: pass on the answer that is next in order, end the run, or wait
    /// for more answers.
    private enum EmitStep {
        case answer(Int, HTTPResponse)
        case finish(Event<(Int, HTTPResponse)>)
        case wait
    }

    /// Emits the answers that are next in order; ends at a failure, at the first 404 and after
    /// the last request. Runs where `spec.handOver` delivers.
    private func emit() {
        emitting.lock()
        defer { emitting.unlock() }
        while true {
            let step = state.withLock { state -> EmitStep in
                guard !state.isStopped else { return .wait }
                if let failure = state.failure { return .finish(.failed(failure)) }
                if let response = state.answers.removeValue(forKey: state.nextToEmit) {
                    defer { state.nextToEmit += 1 }
                    return .answer(state.nextToEmit, response)
                }
                // Every index before the end has been emitted (a request beyond a 404 still on
                // its way is let go of as the run finishes).
                return state.nextToEmit >= state.end ? .finish(.completed) : .wait
            }
            switch step {
            case .answer(let index, let response):
                downstream.next((index, response))
                pump()  // an answer taken leaves room for another
            case .finish(let event):
                finish(event)
                return
            case .wait:
                return
            }
        }
    }

    private func finish(_ event: Event<(Int, HTTPResponse)>) {
        let first = state.withLock { state -> Bool in
            defer { state.isStopped = true }
            return !state.isStopped
        }
        guard first else { return }
        downstream.send(event)
        requests.dispose()
    }

    func dispose() {
        state.withLock { $0.isStopped = true }
        requests.dispose()
    }
}
