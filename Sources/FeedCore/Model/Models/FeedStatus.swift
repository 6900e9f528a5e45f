import FoundationEssentials

/// One feed's state.
public struct FeedStatus: Sendable, Equatable {
    public var name: String
    /// As last read from (or left by a write to) the store.
    public var record: FeedRecord?
    public var activity: FeedActivity = .idle
    /// This action's failure, if any.
    public var failure: FeedFailure?
    /// Not fetched in this action because of a stored `Retry-After`.
    public var skippedUntil: Date?
    /// This action's warnings (one stderr line each).
    public var warnings: [String] = []

    public init(name: String, record: FeedRecord? = nil) {
        self.name = name
        self.record = record
    }
}

/// What the reactor is doing for a feed right now, for the progress line.
public enum FeedActivity: Sendable, Equatable {
    case idle
    /// Waiting for another feedcli run on this feed to finish.
    case waitingForLock
    /// Requesting `url`: page `page` of a walk (1-based), or index `page` of an indexed feed.
    case fetching(url: String, page: Int)
}
