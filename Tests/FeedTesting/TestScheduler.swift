import FeedReactive
import Synchronization

/// A virtual clock: scheduled actions run only when the test advances time, in due order.
public final class TestScheduler: Scheduler {
    private struct Item {
        let due: Duration
        let order: Int
        let action: @Sendable () -> Void
        let cancelled: AnonymousDisposable
    }
    private struct State: ~Copyable {
        var now: Duration = .zero
        var items: [Item] = []
        var order = 0
        var delays: [Duration] = []
    }
    private let state = Mutex(State())

    public init() {}

    public var now: Duration { state.withLock { $0.now } }
    /// Every delay ever requested, in order.
    public var requestedDelays: [Duration] { state.withLock { $0.delays } }

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let cancelled = AnonymousDisposable {}
        state.withLock {
            $0.items.append(Item(due: $0.now + delay, order: $0.order, action: action, cancelled: cancelled))
            $0.order += 1
            $0.delays.append(delay)
        }
        return cancelled
    }

    /// Moves time forward by `duration`, running what falls due on the way.
    public func advance(by duration: Duration) {
        let target = now + duration
        while true {
            let next = state.withLock { state -> Item? in
                let due = state.items.filter { $0.due <= target }
                guard let first = due.min(by: { ($0.due, $0.order) < ($1.due, $1.order) }) else { return nil }
                state.items.removeAll { $0.order == first.order }
                state.now = first.due
                return first
            }
            guard let next else { break }
            if !next.cancelled.isDisposed { next.action() }
        }
        state.withLock { $0.now = target }
    }
}
