/// What the user asked for.
public enum FeedAction: Sendable, Equatable {
    /// Deliver the oldest unread entry of the feed, fetching first when none is unread.
    case next(feed: String)
    /// Deliver the oldest unread entry of all feeds (the one stored first), syncing every feed
    /// first only when nothing is unread anywhere.
    case nextOfAll
    /// Fetch every new entry of these feeds (all feeds when empty) and store them unread.
    case sync(feeds: [String])
    /// Load the stored state of these feeds (all when empty), for `status` and `feeds list`.
    case loadStatus(feeds: [String])

    /// The feeds the action names (empty means all).
    var feeds: [String] {
        switch self {
        case .next(let feed): [feed]
        case .nextOfAll: []
        case .sync(let feeds), .loadStatus(let feeds): feeds
        }
    }
}
