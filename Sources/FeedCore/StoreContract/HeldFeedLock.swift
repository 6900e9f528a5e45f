/// A feed's cross-process lock, held while this value lives and let go when the last reference
/// to it goes: the reactor keeps it with the subscription of the feed's work (`underFeedLock`);
/// a command that changes a feed takes it for a scope (`FeedStoring.withFeedLock`).
public protocol HeldFeedLock: Sendable {}
