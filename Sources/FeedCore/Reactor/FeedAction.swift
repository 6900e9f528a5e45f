import FoundationEssentials

/// What the user asked for.
public enum FeedAction: Sendable, Equatable {
    /// Deliver the oldest unread entry of the feed, fetching first when none is unread; with no
    /// feed, of `posts` while it is the only feed, else as `nextOfAll` of every feed.
    case next(feed: String?)
    /// Deliver the oldest unread entry of these feeds (all when empty) by publication (`published`,
    /// else `fetched_at`, ties in storage order), syncing the feeds that are due (`--every`) first
    /// only when none of them has anything unread.
    case nextOfAll(feeds: [String])
    /// Fetch every new entry of these feeds (all feeds when empty) and store them unread.
    case sync(feeds: [String])
    /// Load the stored state of these feeds (all when empty), for `status` and `feeds list`.
    case loadStatus(feeds: [String])
    /// Follow these stream feeds (all stream feeds when empty): print and commit their entries
    /// as they arrive, reconnecting after drops, until one of `limits` (or the environment's
    /// `stop`) ends it.
    case follow(feeds: [String], limits: FollowLimits)

    /// The feeds the action names (empty means all).
    package var feeds: [String] {
        switch self {
        case .next(let feed): feed.map { [$0] } ?? []
        case .sync(let feeds), .loadStatus(let feeds), .nextOfAll(let feeds), .follow(let feeds, _): feeds
        }
    }
}
