import Synchronization

/// The time a feed's jq expressions may take over one run, every page together: `--timeout`
/// bounds a feed's run, not each page of it. Each call to a worker gets what is left (at most
/// the timeout) and spends what it took; once nothing is left, the next call fails as timed
/// out without asking a worker. Six pages of 1.5 s each with `--timeout 4` took 16.7 s when
/// every page had the whole timeout.
///
/// One budget serves one feed's run of `sync`/`next` (the reactor makes it); a stream's follow,
/// which may run for days, gives each batch the whole timeout instead.
public final class JQBudget: Sendable {
    private let left: Mutex<Duration>

    public init(_ total: Duration) {
        left = Mutex(total)
    }

    /// What is left to spend.
    public var timeLeft: Duration { left.withLock { $0 } }

    /// Takes `spent` off what is left (never below zero).
    public func spend(_ spent: Duration) {
        left.withLock { $0 = max(.zero, $0 - spent) }
    }
}
