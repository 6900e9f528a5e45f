import FeedBase
import FoundationEssentials

/// Holds a resource for the life of a subscription and lets it go exactly once, at the first
/// terminal event (before the event is passed on) or at disposal. Releasing before passing the
/// terminal event on matters: downstream may start work that needs the resource (the next action
/// taking the same feed lock) before the subscription's teardown would run.
package final class SubscriptionResource<Resource: Sendable>: Sendable {
    private let slot: Locked<Resource?>

    package init(_ resource: Resource) {
        slot = Locked(resource)
    }

    package func release() { _ = slot.update { _ in nil } }

    /// `source`, releasing the resource when it ends in any way.
    package func bound<T>(to source: Observable<T>) -> Observable<T> {
        source.handleEvents(
            onFailed: { _ in self.release() }, onCompleted: { self.release() }, onDispose: { self.release() })
    }
}
