import Dispatch
import FoundationEssentials
import Synchronization

/// Where delayed work runs. Injected wherever time matters (retry backoff) so that tests can use a
/// virtual clock instead of sleeping.
public protocol Scheduler: Sendable {
    /// Runs `action` once after `delay` unless the returned disposable is disposed first.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable
}

/// Runs delayed work on a global dispatch queue: the real clock.
public struct DispatchScheduler: Scheduler {
    public init() {}

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let pending = Mutex<(@Sendable () -> Void)?>(action)
        let (seconds, attoseconds) = delay.components
        let nanoseconds = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            pending.withLock { action in
                defer { action = nil }
                return action
            }?()
        }
        return Disposables.create { pending.withLock { $0 = nil } }
    }
}
