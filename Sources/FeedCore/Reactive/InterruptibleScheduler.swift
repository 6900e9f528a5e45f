import Synchronization

/// A scheduler whose waits a run's interruption cuts short: after `interrupt()`, every action
/// still waiting runs at once (on the base scheduler, never inside `interrupt()`), and so does
/// every action scheduled later.
///
/// Why: Ctrl-C or SIGTERM shuts the run's HTTP client down, but a retry waiting out its backoff
/// (or a `Retry-After`) held the run until the wait ended; the process then left through the
/// signal handler's 2-second last resort. Cut short, the wait's next attempt meets the closed
/// client, fails as cancelled (never retried), and the run ends in milliseconds with its own
/// status. Disposing a wait still cancels it, interrupted or not.
public final class InterruptibleScheduler: Scheduler {
    private struct State: ~Copyable {
        var isInterrupted = false
        var nextID = 0
        var waiting: [Int: @Sendable () -> Void] = [:]
    }

    private let base: any Scheduler
    private let state = Mutex(State())

    public init(_ base: any Scheduler) {
        self.base = base
    }

    public var isInterrupted: Bool { state.withLock { $0.isInterrupted } }

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let id = state.withLock { state -> Int? in
            guard !state.isInterrupted else { return nil }
            state.nextID += 1
            state.waiting[state.nextID] = action
            return state.nextID
        }
        guard let id else { return base.schedule(after: .zero, action) }
        let timer = base.schedule(after: delay) { [self] in take(id)?() }
        return Disposables.create { [self] in
            _ = take(id)
            timer.dispose()
        }
    }

    /// Runs every waiting action now, on the base scheduler, and every later one without delay.
    public func interrupt() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            state.isInterrupted = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for action in actions { _ = base.schedule(after: .zero, action) }
    }

    /// The waiting action `id`, removed: each runs at most once, whichever comes first of its
    /// timer, the interruption and its disposal.
    private func take(_ id: Int) -> (@Sendable () -> Void)? {
        state.withLock { $0.waiting.removeValue(forKey: id) }
    }
}
