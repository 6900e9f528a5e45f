import Synchronization

/// What one open SQLite store learned about retention, so that the commits of a `follow` (a
/// hundred a second) ask nothing when there is nothing to prune or forget: when the earliest
/// remembered id expires, and for each feed kept by duration, when its oldest entry was stored;
/// and which eighth of the staged remembered ids the next step moves on.
///
/// Only hints, each of which errs late, never early: another run's commits may add ids that
/// expire sooner (they are forgotten a little later: an id is remembered *at least* its time),
/// and entries are only ever stored newer than a feed's oldest. A miss costs the query it saves.
final class RetentionMemo: Sendable {
    private struct State {
        /// Seconds since 1970 before which no remembered id expires; nil: not known.
        var noExpiryBefore: Int64?
        /// Per feed, the store's text of its oldest entry's storage time.
        var oldestStored: [String: String] = [:]
        /// Which of `stagedRanges` the next prune step moves on.
        var nextStagedRange = 0
    }
    private let state = Mutex(State())

    init() {}

    /// Whether expired ids may need forgetting at `now`.
    func mayExpire(at now: Int64) -> Bool {
        state.withLock { $0.noExpiryBefore.map { now >= $0 } ?? true }
    }

    /// After forgetting: the earliest expiry left (nil when none expires: for ever).
    func expiryChecked(earliest: Int64?) {
        state.withLock { $0.noExpiryBefore = earliest ?? .max }
    }

    /// Ids remembered until `until` (nil: for ever).
    func remembered(until: Int64?) {
        guard let until else { return }
        state.withLock { state in state.noExpiryBefore = state.noExpiryBefore.map { min($0, until) } }
    }

    /// The feed's oldest entry's storage time, when known.
    func oldestStored(feed: String) -> String? { state.withLock { $0.oldestStored[feed] } }

    func setOldestStored(_ time: String?, feed: String) { state.withLock { $0.oldestStored[feed] = time } }

    /// The key space in eighths, lowest first: a prune step moves the staged ids of one
    /// (`FeedStore.mergeStaged`), the next step the next one, round the circle.
    static let stagedRanges: [ClosedRange<Int64>] = (0..<8).map { eighth in
        // -2^63 + k·2^61, which fits for k < 8 although k·2^61 alone does not for k ≥ 4: the
        // wrapping sum is the exact one.
        let lowest = Int64.min &+ (Int64(eighth) &<< 61)
        return lowest...(lowest + ((1 << 61) - 1))
    }

    /// The eighth the coming step moves on (each open store goes round on its own: another
    /// run's steps only move some eighths sooner).
    func nextStagedRange() -> ClosedRange<Int64> {
        state.withLock { state in
            defer { state.nextStagedRange = (state.nextStagedRange + 1) % Self.stagedRanges.count }
            return Self.stagedRanges[state.nextStagedRange]
        }
    }
}
