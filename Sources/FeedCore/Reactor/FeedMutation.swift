import FeedModel
import FoundationEssentials

/// What happened, as `reduce` learns it. Every change of `FeedReactorState` comes through one of
/// these; per-feed state always arrives as the store's own record, never recomputed.
///
/// `indirect`: a mutation passes through a dozen operators on its way to `reduce`, each taking
/// a copy; boxed, a copy is a reference count rather than the bytes of a `FeedRecord`.
public indirect enum FeedMutation: Sendable, Equatable {
    /// A new action begins: forget the previous action's output and failures.
    case actionStarted
    /// The store's record of a feed (registration, cursors, counts, last error), as read or as
    /// left by a write.
    case loaded(FeedRecord)
    case activity(feed: String, FeedActivity)
    /// `next` printed this entry and marked it read.
    case delivered(Entry)
    /// A fetch committed `count` new entries (printed first, for `sync`); the record is the
    /// feed's after the commit. 0 when nothing was new. A count, not the entries: a sync's
    /// mutations are gathered while its batches are delivered, and must not hold them all.
    case stored(feed: String, count: Int, FeedRecord)
    /// A stream feed's connection is open and answered as a stream: whatever failed before it
    /// has mended (a stream may stay quiet for hours, with no commit to say so).
    case connected(feed: String)
    /// The feed was not fetched: its server asked not to be asked before `until`.
    case skipped(feed: String, until: Date)
    /// Something the user should hear about that did not fail the feed (a dead next-page link).
    case warned(feed: String, String)
    /// Fetching, storing or printing failed. For a feed, nothing of its cursor changed (its
    /// record with the error arrives as `.loaded`); with no feed, the whole run stopped. A feed's
    /// failure lasts until it succeeds again in the same action (`.stored`, `.connected`).
    case failed(feed: String?, FeedFailure)
}
