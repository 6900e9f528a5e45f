import FoundationEssentials
import Synchronization

/// The consumer's end of one subscription. It enforces the event grammar and owns the producer's
/// teardown.
///
/// - Events after a terminal event, or after `dispose()`, are dropped.
/// - The producer's teardown runs exactly once: on the terminal event, on `dispose()`, or at once
///   when the producer finishes synchronously before handing its teardown back.
/// - The handler runs outside the lock, so it may dispose this subscription or subscribe to others
///   re-entrantly. An event already being delivered when another thread calls `dispose()` may
///   still finish delivering; no event starts after `dispose()` returns.
///
/// The state is three stored properties behind one `Mutex<Void>` rather than a `Mutex` of a
/// nested struct: a struct nested in this generic class is generic too, and code that is not
/// specialized for `Element` looked up its metadata (and the mutex's) at run time on every event.
//
// @unchecked Sendable: `handler`, `teardown` and `isStopped` are read and written only inside
// `lock.withLock`, so no two threads touch them at once. The same lock makes the run-time
// exclusivity checks of class properties redundant (`@exclusivity(unchecked)`): they cost as much
// as the metadata look-ups this layout removed.
package final class Subscription<Element: Sendable>: Disposable, @unchecked Sendable {
    private let lock = Mutex(())
    @exclusivity(unchecked) private var handler: (@Sendable (Event<Element>) -> Void)?
    @exclusivity(unchecked) private var teardown: (any Disposable)?
    @exclusivity(unchecked) private var isStopped = false

    package init(_ handler: @escaping @Sendable (Event<Element>) -> Void) {
        self.handler = handler
    }

    package var observer: Observer<Element> {
        Observer { [self] event in self.deliver(event) }
    }

    package func attach(teardown: any Disposable) {
        let stoppedAlready = lock.withLock { _ -> Bool in
            if isStopped { return true }
            self.teardown = teardown
            return false
        }
        if stoppedAlready { teardown.dispose() }
    }

    package func deliver(_ event: Event<Element>) {
        let handler = lock.withLock { _ -> (@Sendable (Event<Element>) -> Void)? in
            guard !isStopped else { return nil }
            let handler = self.handler
            if event.isTerminal {
                isStopped = true
                self.handler = nil
            }
            return handler
        }
        guard let handler else { return }
        handler(event)
        if event.isTerminal { takeTeardown()?.dispose() }
    }

    package func dispose() {
        lock.withLock { _ in
            isStopped = true
            handler = nil
        }
        takeTeardown()?.dispose()
    }

    private func takeTeardown() -> (any Disposable)? {
        lock.withLock { _ in
            defer { teardown = nil }
            return teardown
        }
    }
}
