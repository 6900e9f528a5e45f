import FeedModel

/// The order entries are listed in: as stored (a feed's own order: the order its entries are
/// delivered in), or by publication (`published`, else `fetched_at`, ties as stored), the one
/// order across several feeds, whose storage order is only the order their fetches ended in.
public enum EntryOrder: Sendable {
    case stored
    case published
}
