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
package final class Subscription<Element: Sendable>: Disposable {
    private struct Box: ~Copyable {
        var handler: (@Sendable (Event<Element>) -> Void)?
        var teardown: (any Disposable)?
        var isStopped = false
    }
    private let box: Mutex<Box>

    package init(_ handler: @escaping @Sendable (Event<Element>) -> Void) {
        box = Mutex(Box(handler: handler))
    }

    package var observer: Observer<Element> {
        Observer { [self] event in self.deliver(event) }
    }

    package func attach(teardown: any Disposable) {
        let stoppedAlready = box.withLock { box -> Bool in
            if box.isStopped { return true }
            box.teardown = teardown
            return false
        }
        if stoppedAlready { teardown.dispose() }
    }

    package func deliver(_ event: Event<Element>) {
        let handler = box.withLock { box -> (@Sendable (Event<Element>) -> Void)? in
            guard !box.isStopped else { return nil }
            if event.isTerminal {
                box.isStopped = true
                defer { box.handler = nil }
                return box.handler
            }
            return box.handler
        }
        guard let handler else { return }
        handler(event)
        if event.isTerminal { takeTeardown()?.dispose() }
    }

    package func dispose() {
        box.withLock { box in
            box.isStopped = true
            box.handler = nil
        }
        takeTeardown()?.dispose()
    }

    private func takeTeardown() -> (any Disposable)? {
        box.withLock { box in
            defer { box.teardown = nil }
            return box.teardown
        }
    }
}
