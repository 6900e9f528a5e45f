import FeedBase
import FeedReactive

/// How many entries a `follow` may still deliver (`--max-entries`), shared by its feeds; when it
/// runs out, `exhausted` fires.
package final class EntryBudget: Sendable {
    private let left: Locked<Int>
    private let subject = Subject<Void>()

    package init(_ entries: Int) {
        left = Locked(max(0, entries))
    }

    /// Fires (completes) once the budget is spent.
    package var exhausted: Observable<Void> { subject.observable }

    /// Takes up to `wanted` entries; how many may be delivered.
    package func take(_ wanted: Int) -> Int {
        let (granted, spent) = left.withLock { left -> (Int, Bool) in
            let granted = min(wanted, left)
            left -= granted
            return (granted, left == 0)
        }
        if spent { subject.send(.completed) }
        return granted
    }
}
