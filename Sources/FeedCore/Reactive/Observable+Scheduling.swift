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
    public func observe(on queue: DispatchQueue) -> Observable {
        Observable { observer in
            let isDisposed = Locked(false)
            let source = self.subscribe { event in
                queue.async {
                    guard !isDisposed.value else { return }
                    observer.send(event)
                }
            }
            return Disposables.create {
                isDisposed.withLock { $0 = true }
                source.dispose()
            }
        }
    }
}
