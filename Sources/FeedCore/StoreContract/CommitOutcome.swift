import FeedModel

/// What `commitFetch` did: the entries that were new and the feed's record afterwards.
public struct CommitOutcome: Sendable, Equatable {
    public var entries: [Entry]
    public var record: FeedRecord

    public init(entries: [Entry], record: FeedRecord) {
        self.entries = entries
        self.record = record
    }
}
