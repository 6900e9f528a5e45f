import FeedBase
import Foundation

/// Where a test server's handlers (each on a thread of its own) wait for the test instead of sleeping: requests from the
/// `heldFrom`-th on (counted in arrival order, from 1) wait until `open()`, and the test waits
/// for the n-th arrival with `waitForArrivals(_:)`. A held handler also lets go when the gate
/// is dropped with the server (a test that failed early must not leave a thread waiting).
public final class RequestGate: Sendable {
    private struct State {
        var arrivals = 0
        var heldFrom = Int.max
        var gatherFirst = 0
        var isOpen = false
    }
    private let state = Locked(State())
    private let changed = NSCondition()

    public init() {}

    /// Holds every request from the `n`-th on until `open()`.
    public func hold(from n: Int) {
        update {
            $0.heldFrom = n
            $0.isOpen = false
        }
    }

    /// The first `n` requests wait for one another, so that `n` are in flight together (a
    /// barrier for the first batch only: later requests pass, however few remain).
    public func gatherFirst(_ n: Int) { update { $0.gatherFirst = n } }

    /// Lets every held request go on.
    public func open() { update { $0.isOpen = true } }

    /// Whether `n` requests arrived within `seconds` (a bound against a hang, not a measurement),
    /// awaited on a thread of its own.
    public func waitForArrivals(_ n: Int, seconds: Double = 20) async -> Bool {
        await onOwnThread { [self] in wait(seconds: seconds) { $0.arrivals >= n } }
    }

    /// Called by a handler as a request arrives: returns once the request may be answered.
    public func arrive() {
        var number = 0
        update {
            $0.arrivals += 1
            number = $0.arrivals
        }
        _ = wait(seconds: 60) { state in
            (number > state.gatherFirst || state.arrivals >= state.gatherFirst)
                && (number < state.heldFrom || state.isOpen)
        }
    }

    private func update(_ change: (inout State) -> Void) {
        changed.lock()
        state.withLock(change)
        changed.broadcast()
        changed.unlock()
    }

    private func wait(seconds: Double, until condition: (State) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        changed.lock()
        defer { changed.unlock() }
        while !state.withLock({ condition($0) }) {
            if !changed.wait(until: deadline) { return state.withLock { condition($0) } }
        }
        return true
    }
}
