import Synchronization

/// Ctrl-C, as seen by a command: the CLI triggers it from its signal handler; the running command
/// has registered what to cancel (its HTTP client, which aborts the request in flight before
/// anything of it is committed).
public final class Interruption: Sendable {
    private struct State: ~Copyable {
        var isTriggered = false
        var handlers: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    public init() {}

    public var isTriggered: Bool { state.withLock { $0.isTriggered } }

    /// Runs `handler` on trigger (at once if already triggered).
    public func onTrigger(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.isTriggered { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    public func trigger() {
        let handlers = state.withLock { state in
            defer { state.handlers = [] }
            state.isTriggered = true
            return state.handlers
        }
        for handler in handlers { handler() }
    }
}
