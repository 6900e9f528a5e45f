import FeedStoreContract
import Synchronization

/// What one open SQLite store learned about retention, so that the commits of a `follow` (a
/// hundred a second) ask nothing when there is nothing to prune or forget: when the earliest
/// remembered generation ends, and for each feed kept by duration when its oldest entry was
/// stored.
///
/// Only hints, each of which errs late, never early: another run's commits may add ids that
/// expire sooner (they are forgotten a little later: an id is remembered *at least* its time),
/// and entries are only ever stored newer than a feed's oldest. A miss costs the query it saves.
final class RetentionMemo: Sendable {
    private struct State {
        /// Seconds since 1970 until which no remembered generation ends; nil: not known.
        var noExpiryBefore: Int64?
        /// Per feed, the store's text of its oldest entry's storage time.
        var oldestStored: [String: String] = [:]
    }
    private let state = Mutex(State())

    init() {}

    /// Whether expired ids may need forgetting at `now` (a generation is forgotten once it has ended
    /// before `now`).
    func mayExpire(at now: Int64) -> Bool {
        state.withLock { $0.noExpiryBefore.map { now > $0 } ?? true }
    }

    /// After forgetting: the earliest generation left (`RememberedGeneration.forever` when none ends).
    func expiryChecked(earliest: Int64) {
        state.withLock { $0.noExpiryBefore = earliest }
    }

    /// Ids remembered in the generation `expires`.
    func remembered(expiring expires: Int64) {
        state.withLock { state in state.noExpiryBefore = state.noExpiryBefore.map { min($0, expires) } }
    }

    /// The feed's oldest entry's storage time, when known.
    func oldestStored(feed: String) -> String? { state.withLock { $0.oldestStored[feed] } }

    func setOldestStored(_ time: String?, feed: String) { state.withLock { $0.oldestStored[feed] = time } }
}
