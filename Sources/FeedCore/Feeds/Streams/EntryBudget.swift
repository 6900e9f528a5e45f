import FeedBase
import FeedReactive

/// How many entries a `follow` may still deliver (`--max-entries`), shared by its feeds; when it
/// runs out, `exhausted` fires. A delivery reserves its share first and then spends what it
/// delivered: what an output refused (`--exec`) goes back, for the feed's next try.
package final class EntryBudget: Sendable {
    private let left: Locked<Int>
    private let subject = Subject<Void>()

    package init(_ entries: Int) {
        left = Locked(max(0, entries))
    }

    /// Whether nothing is left.
    package var isSpent: Bool { left.withLock { $0 == 0 } }

    /// Fires (completes) once the budget is spent.
    package var exhausted: Observable<Void> { subject.observable }

    /// Reserves up to `wanted` entries for one delivery; how many it may deliver. Every
    /// reservation is followed by `spend(_:of:)`.
    package func reserve(_ wanted: Int) -> Int {
        left.withLock { left in
            let granted = min(wanted, left)
            left -= granted
            return granted
        }
    }

    /// Ends a reservation of `reserved` entries of which `delivered` were delivered: the rest
    /// goes back. Fires `exhausted` when nothing is left.
    package func spend(_ delivered: Int, of reserved: Int) {
        let spent = left.withLock { left -> Bool in
            left += reserved - min(delivered, reserved)
            return left == 0
        }
        if spent { subject.send(.completed) }
    }
}
