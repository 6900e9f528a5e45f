import Dispatch

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

/// Holds a resource for the life of a subscription and lets it go exactly once, at the first
/// terminal event (before the event is passed on) or at disposal. Releasing before passing the
/// terminal event on matters: downstream may start work that needs the resource (the next action
/// taking the same feed lock) before the subscription's teardown would run.
final class SubscriptionResource<Resource: Sendable>: Sendable {
    private let slot: Accumulator<Resource?>

    init(_ resource: Resource) {
        slot = Accumulator(resource)
    }

    func release() { _ = slot.update { _ in nil } }

    /// `source`, releasing the resource when it ends in any way.
    func bound<T>(to source: Observable<T>) -> Observable<T> {
        source.handleEvents(
            onFailed: { _ in self.release() }, onCompleted: { self.release() }, onDispose: { self.release() })
    }
}
