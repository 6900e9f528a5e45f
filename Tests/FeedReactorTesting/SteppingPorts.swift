import FeedModel
import FeedReactor
import FeedStoreContract
import Foundation

/// The steps of a run around its output, as its ports see them, in order: a test that interrupts
/// a run at every step wraps the reactor's store and output (`SteppingStore`, `SteppingOutput`;
/// `CommandContext.reactorPorts` for a command), so that no production code reports steps.
public enum RunStep: String, Sendable, CaseIterable {
    /// The feed's lock is held.
    case locked
    /// About to print entries.
    case delivering
    /// Printed (all, or as many as the output took).
    case delivered
    /// About to commit what was printed (or a fetch that found nothing new).
    case committing
    /// Committed.
    case committed
}

/// A store that tells `onStep` when a feed's lock is taken and around each commit, and otherwise
/// is `base`.
public struct SteppingStore: FeedStoring {
    let base: any FeedStoring
    let onStep: @Sendable (RunStep) -> Void

    public init(_ base: any FeedStoring, onStep: @escaping @Sendable (RunStep) -> Void) {
        self.base = base
        self.onStep = onStep
    }

    private func committing<T>(_ commit: () throws(FeedFailure) -> T) throws(FeedFailure) -> T {
        onStep(.committing)
        let value = try commit()
        onStep(.committed)
        return value
    }

    private func locked<T>(_ lock: T?) -> T? {
        if lock != nil { onStep(.locked) }
        return lock
    }

    public var locksNeedKnownFeeds: Bool { base.locksNeedKnownFeeds }
    public func feeds() throws(FeedFailure) -> [FeedRecord] { try base.feeds() }
    public func feed(named name: String) throws(FeedFailure) -> FeedRecord { try base.feed(named: name) }
    public func listedFeeds() throws(FeedFailure) -> [ListedFeed] { try base.listedFeeds() }
    public func feed(_ listed: ListedFeed) throws(FeedFailure) -> FeedRecord { try base.feed(listed) }

    public func lock(feed: String) throws(FeedFailure) -> any HeldFeedLock {
        let lock = try base.lock(feed: feed)
        onStep(.locked)
        return lock
    }

    public func attemptLock(feed: String) throws(FeedFailure) -> (any HeldFeedLock)? {
        locked(try base.attemptLock(feed: feed))
    }

    public func attemptLockReading(
        feed: String
    ) throws(FeedFailure) -> (lock: any HeldFeedLock, record: Result<FeedRecord, FeedFailure>)? {
        locked(try base.attemptLockReading(feed: feed))
    }

    public func oldestUnread(feed: String) throws(FeedFailure) -> Entry? { try base.oldestUnread(feed: feed) }
    public func oldestUnread(feeds: [String]?) throws(FeedFailure) -> Entry? { try base.oldestUnread(feeds: feeds) }

    public func markDelivered(feed: String, id: String) throws(FeedFailure) -> FeedRecord {
        try committing { () throws(FeedFailure) in try base.markDelivered(feed: feed, id: id) }
    }

    public func commitFetch(feed: String, entries: [Entry], _ commit: FetchCommit) throws(FeedFailure) -> CommitOutcome
    {
        try committing { () throws(FeedFailure) in try base.commitFetch(feed: feed, entries: entries, commit) }
    }

    public func commitNothingNew(
        _ fetches: [(feed: String, commit: FetchCommit)]
    ) throws(FeedFailure) -> [Result<FeedRecord, FeedFailure>] {
        try committing { () throws(FeedFailure) in try base.commitNothingNew(fetches) }
    }

    public func setRetention(feed: String, _ retention: Retention) throws(FeedFailure) {
        try base.setRetention(feed: feed, retention)
    }

    public func clearLastError(feed: String) throws(FeedFailure) -> FeedRecord {
        try base.clearLastError(feed: feed)
    }

    public func setSourceTitle(feed: String, _ title: String) throws(FeedFailure) {
        try base.setSourceTitle(feed: feed, title)
    }

    public func changeMark() throws(FeedFailure) -> Int64? { try base.changeMark() }

    public func attemptOwnership(feed: String) throws(FeedFailure) -> (any HeldFeedLock)? {
        try base.attemptOwnership(feed: feed)
    }

    public func ownerElsewhere(feed: String) throws(FeedFailure) -> String? { try base.ownerElsewhere(feed: feed) }

    public func knownIDs(feed: String, among ids: [String]) throws(FeedFailure) -> Set<String> {
        try base.knownIDs(feed: feed, among: ids)
    }

    public func newestEntryID(feed: String) throws(FeedFailure) -> String? { try base.newestEntryID(feed: feed) }

    public func number(_ entries: [Entry], backfill: Bool) throws(FeedFailure) -> [Entry] {
        try base.number(entries, backfill: backfill)
    }

    public func recordFailure(
        feed: String, _ failure: FeedFailure, at time: Date, retryNotBefore: Date?
    ) throws(FeedFailure) -> FeedRecord {
        try base.recordFailure(feed: feed, failure, at: time, retryNotBefore: retryNotBefore)
    }
}

/// An output that tells `onStep` before and after each delivery, and otherwise is `base`.
public struct SteppingOutput: EntryOutput {
    let base: any EntryOutput
    let onStep: @Sendable (RunStep) -> Void

    public init(_ base: any EntryOutput, onStep: @escaping @Sendable (RunStep) -> Void) {
        self.base = base
        self.onStep = onStep
    }

    public func deliver(_ entries: [Entry]) -> DeliveryReport {
        onStep(.delivering)
        let report = base.deliver(entries)
        onStep(.delivered)
        return report
    }

    public func exclusively<T>(_ body: () throws -> T) rethrows -> T { try base.exclusively(body) }
}
