import FoundationEssentials
import Glibc

/// The time a waiting lock reads and the pause it takes between attempts: the process's
/// monotonic clock and `usleep` in the program; a virtual clock in tests, which advances on
/// every pause, so that a wait of any length is tested at once and to the attempt.
public struct LockWaitingClock: Sendable {
    /// How long a waiting lock pauses between attempts, on either engine.
    package static let pollInterval: Duration = .milliseconds(20)

    /// Time since some fixed start.
    public var elapsed: @Sendable () -> Duration
    public var pause: @Sendable (Duration) -> Void

    public init(elapsed: @escaping @Sendable () -> Duration, pause: @escaping @Sendable (Duration) -> Void) {
        self.elapsed = elapsed
        self.pause = pause
    }

    public static let live: LockWaitingClock = {
        let start = ContinuousClock.now
        return LockWaitingClock(
            elapsed: { ContinuousClock.now - start },
            pause: { duration in
                usleep(
                    UInt32(
                        clamping: duration.components.seconds * 1_000_000 + duration.components.attoseconds
                            / 1_000_000_000_000))
            })
    }()
}
