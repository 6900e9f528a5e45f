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
