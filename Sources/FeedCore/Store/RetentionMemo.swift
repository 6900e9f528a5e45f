import FeedStoreContract
import Synchronization

/// What one open SQLite store learned about retention, so that the commits of a `follow` (a
/// hundred a second) ask nothing when there is nothing to prune or forget: when the earliest
/// remembered id expires, for each feed kept by duration when its oldest entry was stored, how
/// many ids `remembered_id` holds, and where in the key space the next prune step moves staged
/// ids on (`nextStagedRange`).
///
/// Only hints, each of which errs late, never early: another run's commits may add ids that
/// expire sooner (they are forgotten a little later: an id is remembered *at least* its time),
/// and entries are only ever stored newer than a feed's oldest. A miss costs the query it saves;
/// a wrong count only makes the steps' ranges less well sized.
final class RetentionMemo: Sendable {
    private struct State {
        /// Seconds since 1970 before which no remembered id expires; nil: not known.
        var noExpiryBefore: Int64?
        /// Per feed, the store's text of its oldest entry's storage time.
        var oldestStored: [String: String] = [:]
        /// Where the next range starts, as an offset from `Int64.min` (the key space is 2^64 wide).
        var nextRangeOffset: UInt64 = 0
        /// About how many ids `remembered_id` holds; nil until counted once.
        var rememberedCount: Int64?
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

    /// How many ids `remembered_id` holds, as last counted and changed since; nil: not counted.
    var rememberedCount: Int64? { state.withLock { $0.rememberedCount } }

    /// `remembered_id` holds `change` more ids (fewer when negative): nothing while not counted.
    func rememberedCountChanged(by change: Int64) {
        state.withLock { state in
            state.rememberedCount = state.rememberedCount.map {
                max(0, $0.addingReportingOverflow(change).partialValue)
            }
        }
    }

    /// `remembered_id` holds `count` ids, counted just now.
    func rememberedCounted(_ count: Int64) { state.withLock { $0.rememberedCount = count } }

    /// The next prune step's range of the key space, for a `remembered_id` of `count` ids: the
    /// staged ids in it move on and the expired ids in it are forgotten (`FeedStore.mergeStaged`);
    /// the step after takes the range after it, round the circle.
    ///
    /// How wide: a step moves about a step's worth of ids (`PruneStep.most`) however wide its
    /// range, since the staged table holds the ids of as many steps as the circle has ranges. A
    /// range of 1/R of the key space rewrites about 1/R of `remembered_id`'s pages, while every
    /// step rewrites most of the staged table's, which holds R steps' ids: the two are equal, and
    /// their sum smallest, when R is about √(count / most). So R is the power of two nearest that,
    /// 8 at least (a small table: eighths) and 1,024 at most. A million ids remembered: 32 ranges,
    /// about 190 pages of each table a step, where eighths rewrote about 780.
    func nextStagedRange(rememberedCount count: Int64) -> ClosedRange<Int64> {
        let ranges = Self.rangeCount(rememberedCount: count)
        // Ranges are aligned to their width, so the circle stays whole when the width changes:
        // the next range starts where the last ended, rounded down to the new width.
        let width = UInt64.max / UInt64(ranges) &+ 1
        return state.withLock { state in
            let start = state.nextRangeOffset & ~(width &- 1)
            state.nextRangeOffset = start &+ width  // 2^64 wraps to 0: round the circle
            return Self.key(offset: start)...Self.key(offset: start &+ (width &- 1))
        }
    }

    /// How many ranges the circle has for a `remembered_id` of `count` ids (see `nextStagedRange`).
    static func rangeCount(rememberedCount count: Int64) -> Int {
        let ideal = Double(max(count, 0)) / Double(PruneStep.most)
        var ranges = 8
        while ranges < 1024, Double(ranges * ranges) * 2 < ideal { ranges *= 2 }
        return ranges
    }

    /// The key `offset` places above `Int64.min`.
    private static func key(offset: UInt64) -> Int64 { Int64(bitPattern: offset ^ (1 << 63)) }
}
