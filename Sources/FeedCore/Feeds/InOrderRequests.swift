import FeedBase
import FeedHTTP
import FeedReactive
import FoundationEssentials

/// Requests indices `start…` through `request`, up to `inFlight` at once in a sliding window (a
/// new request starts as soon as one finishes, not when a whole window has), and emits each
/// answer in index order. Ends at the first 404 (not emitted; requests beyond it are cancelled)
/// or after `count` requests. With `probesFirst`, the first request goes alone, and the window
/// opens only once it has answered with something other than a 404.
package struct InOrderRequests: Sendable {
    package let start: Int
    package let count: Int
    package let inFlight: Int
    package let probesFirst: Bool
    package let request: @Sendable (Int) -> Observable<HTTPResponse>

    package var observable: Observable<(Int, HTTPResponse)> {
        Observable { observer in
            let run = InOrderRun(self, downstream: observer)
            run.pump()
            return run
        }
    }
}

/// One subscription of `InOrderRequests`.
private final class InOrderRun: Disposable {
    private struct State {
        var nextToRequest: Int
        var nextToEmit: Int
        var answers: [Int: HTTPResponse] = [:]
        var active = 0
        var limit: Int
        var isStopped = false
    }

    private let spec: InOrderRequests
    private let downstream: Observer<(Int, HTTPResponse)>
    private let state: Locked<State>
    private let requests = CompositeDisposable()
    /// Taken around taking answers out in order and emitting them, so runs emitted from
    /// different threads keep index order; recursive because a synchronous request answers
    /// inside `pump`.
    private let emitting = RecursiveLock()

    init(_ spec: InOrderRequests, downstream: Observer<(Int, HTTPResponse)>) {
        self.spec = spec
        self.downstream = downstream
        state = Locked(State(nextToRequest: spec.start, nextToEmit: spec.start,
                             limit: spec.probesFirst ? 1 : max(1, spec.inFlight)))
    }

    /// Starts requests while the window has room; completes when every request has answered.
    func pump() {
        while true {
            let index = state.withLock { state -> Int? in
                guard !state.isStopped, state.active < state.limit, state.nextToRequest < spec.start + spec.count else {
                    return nil
                }
                defer {
                    state.nextToRequest += 1
                    state.active += 1
                }
                return state.nextToRequest
            }
            guard let index else { break }
            let key = requests.reserveKey()
            requests.add(spec.request(index).subscribe { [self] event in receive(event, index: index, key: key) }, for: key)
        }
        let exhausted = state.withLock { !$0.isStopped && $0.active == 0 && $0.nextToEmit >= spec.start + spec.count }
        if exhausted { finish(.completed) }
    }

    private func receive(_ event: Event<HTTPResponse>, index: Int, key: CompositeDisposable.Key) {
        switch event {
        case .next(let response):
            state.withLock { $0.answers[index] = response }
        case .failed(let error):
            finish(.failed(error))
        case .completed:
            requests.remove(key)
            emitting.lock()
            var reachedTheEnd = false
            let ready = state.withLock { state -> [(Int, HTTPResponse)] in
                state.active -= 1
                var ready: [(Int, HTTPResponse)] = []
                while let response = state.answers.removeValue(forKey: state.nextToEmit) {
                    if response.status == 404 {
                        reachedTheEnd = true
                        break
                    }
                    ready.append((state.nextToEmit, response))
                    state.nextToEmit += 1
                    state.limit = max(1, spec.inFlight)
                }
                return state.isStopped ? [] : ready
            }
            for answer in ready { downstream.next(answer) }
            emitting.unlock()
            if reachedTheEnd { finish(.completed) } else { pump() }
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
