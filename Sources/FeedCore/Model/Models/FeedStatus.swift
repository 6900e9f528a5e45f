import FoundationEssentials

/// One feed's state.
public struct FeedStatus: Sendable, Equatable {
    public var name: String
    /// As last read from (or left by a write to) the store.
    public var record: FeedRecord?
    public var activity: FeedActivity = .idle
    /// The feed's failure now, if any: set by a failure, cleared by the next success of the same
    /// action (a fetch committed, a stream connected), so a `follow` that lasts for months ends
    /// with the state its feeds are in, not with every failure they ever mended.
    public var failure: FeedFailure?
    /// Failures in a row since the feed last succeeded in this action (0 when it is healthy).
    public var failuresInARow = 0
    /// Not fetched in this action because of a stored `Retry-After`.
    public var skippedUntil: Date?
    /// This action's warnings (one stderr line each), the newest `keptWarnings` of them.
    public var warnings: [String] = []
    /// How many warnings this action had, also those no longer kept: a watcher of a long
    /// `follow` tells new ones from those it has said by this count.
    public var warningCount = 0

    /// The most warnings a feed's status keeps: a `follow` runs for months, and a feed that
    /// warns at each poll must not grow its state for as long; a `sync` says every warning of
    /// its run (a hundred skipped items a page, named), far fewer than this.
    public static let keptWarnings = 10_000

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
