import Dispatch
import FeedBase
import FoundationEssentials

extension Observable {
    /// Subscribes to the source on `queue` instead of the subscribing thread, so a producer that
    /// blocks while starting (waiting for a lock, a disk write) blocks `queue`, not its caller.
    /// Events still arrive wherever the source sends them. Disposing before the subscription has
    /// happened cancels it.
    public func subscribe(on queue: DispatchQueue) -> Observable {
        Observable { observer in
            let subscription = SerialDisposable()
            queue.async {
                guard !subscription.isDisposed else { return }
                subscription.replace(with: self.subscribe(observer.send))
            }
            return subscription
        }
    }
}

extension Observable {
    /// Passes every event on from `queue` instead of the thread that produced it, in order. Used
    /// to move work off the HTTP client's worker thread, which must only drive curl. Disposing
    /// stops delivery of events not yet passed on.
    ///
    /// Events that arrive while earlier ones still wait for the queue join them and cross in the
    /// same hop: a response's element and its completion, sent back to back, wake the queue once
    /// (each hop is a wake-up of a sleeping thread, the largest cost of a quiet feed's fetch).
    public func observe(on queue: DispatchQueue) -> Observable {
        observe(on: queue, join: nil)
    }

    /// `observe(on:)`, and the elements that wait for the queue together cross as one, which
    /// `join` makes of them (in order; an end stays after the elements before it). For a
    /// consumer slower than its source that pays for each element: a stream's chunks that
    /// arrived while the one before was being stored are stored in one commit, not one each.
    public func observe(on queue: DispatchQueue, joiningWaiting join: @escaping @Sendable ([Element]) -> Element)
        -> Observable
    {
        observe(on: queue, join: join)
    }

    private func observe(on queue: DispatchQueue, join: (@Sendable ([Element]) -> Element)?) -> Observable {
        Observable { observer in
            let relay = QueueRelay<Element>(observer: observer, join: join)
            let source = self.subscribe { event in
                if relay.enqueue(event) { queue.async { relay.drain() } }
            }
            return Disposables.create {
                relay.dispose()
                source.dispose()
            }
        }
    }
}

/// The events `observe(on:)` has taken and not yet passed on, and whether a hop is scheduled.
private final class QueueRelay<Element: Sendable>: Sendable {
    private struct State {
        var waiting: [Event<Element>] = []
        var isDisposed = false
    }

    private let state = Locked(State())
    private let observer: Observer<Element>
    /// Makes one element of elements that waited together; nil: each crosses alone.
    private let join: (@Sendable ([Element]) -> Element)?

    init(observer: Observer<Element>, join: (@Sendable ([Element]) -> Element)?) {
        self.observer = observer
        self.join = join
    }

    /// Adds `event`; true when it is the first waiting one, so the caller schedules a `drain`.
    func enqueue(_ event: Event<Element>) -> Bool {
        state.withLock { state in
            state.waiting.append(event)
            return state.waiting.count == 1
        }
    }

    /// Passes on the waiting events, in order. One that arrives meanwhile finds none waiting and
    /// schedules a hop of its own, after this one on the (serial) queue.
    func drain() {
        let batch = state.withLock { state -> [Event<Element>] in
            defer { state.waiting = [] }
            return state.isDisposed ? [] : state.waiting
        }
        for event in join.map({ Self.joined(batch, by: $0) }) ?? batch {
            guard !state.withLock({ $0.isDisposed }) else { return }
            observer.send(event)
        }
    }

    /// `events` with each run of elements made one by `join`.
    private static func joined(_ events: [Event<Element>], by join: ([Element]) -> Element) -> [Event<Element>] {
        var joined: [Event<Element>] = []
        var run: [Element] = []
        func endRun() {
            if !run.isEmpty { joined.append(.next(run.count == 1 ? run[0] : join(run))) }
            run = []
        }
        for event in events {
            guard case .next(let element) = event else {
                endRun()
                joined.append(event)
                continue
            }
            run.append(element)
        }
        endRun()
        return joined
    }

    func dispose() {
        state.withLock { state in
            state.isDisposed = true
            state.waiting = []
        }
    }
}
