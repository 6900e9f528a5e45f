import FeedModel
import FoundationEssentials

/// What the feed reactor needs of a store: `FeedStore` (SQLite) in the program, an in-memory
/// stand-in in fast reactor tests. Every write returns the feed's record as the store now holds
/// it, so the reactor's state never recomputes what the store keeps.
///
/// Threading: calls may block (SQLite work, busy waits); the reactor makes them from its work
/// and lock queues, never from the HTTP client's thread.
public protocol FeedStoring: Sendable {
    /// Every feed, by name.
    func feeds() throws(FeedFailure) -> [FeedRecord]
    /// One feed, or `.notFound` (66).
    func feed(named name: String) throws(FeedFailure) -> FeedRecord
    /// Every feed, by name, each with a mark of the store's state when the list was read.
    func listedFeeds() throws(FeedFailure) -> [ListedFeed]
    /// A listed feed as the store holds it now, or `.notFound` when it is gone: the listed record
    /// itself while nothing was committed since the list was read, else read again.
    func feed(_ listed: ListedFeed) throws(FeedFailure) -> FeedRecord
    /// Takes the feed's cross-process lock, waiting as configured; held until the returned
    /// value is let go.
    func lock(feed: String) throws(FeedFailure) -> any HeldFeedLock
    /// The feed's lock when no other run holds it, without waiting; nil when one does.
    func attemptLock(feed: String) throws(FeedFailure) -> (any HeldFeedLock)?
    /// `attemptLock(feed:)` and, when the lock was taken, the feed's record read under it (or
    /// why it could not be: `.notFound` for an unknown name). A store may do both in one round
    /// trip; the default does one after the other.
    func attemptLockReading(feed: String) throws(FeedFailure) -> (
        lock: any HeldFeedLock, record: Result<FeedRecord, FeedFailure>
    )?
    /// Whether a feed's lock is a thing named after the feed (SQLite's: a file beside the
    /// store), so that a name is looked up before its lock is taken and an unknown one fails
    /// (66) leaving nothing behind. A store whose locks name nothing (PostgreSQL's advisory
    /// locks) takes the lock first and finds an unknown name under it: a round trip fewer.
    var locksNeedKnownFeeds: Bool { get }
    /// The oldest unread entry, without marking it.
    func oldestUnread(feed: String) throws(FeedFailure) -> Entry?
    /// The oldest unread entry of `feeds` (all when nil) by `published`, else `fetched_at`, ties
    /// in storage order.
    func oldestUnread(feeds: [String]?) throws(FeedFailure) -> Entry?
    /// Marks a printed entry read.
    func markDelivered(feed: String, id: String) throws(FeedFailure) -> FeedRecord
    /// Stores new entries and a fetch's bookkeeping in one transaction.
    func commitFetch(feed: String, entries: [Entry], _ commit: FetchCommit) throws(FeedFailure) -> CommitOutcome
    /// Commits several fetches that found nothing new in one transaction; each feed's own outcome.
    func commitNothingNew(_ fetches: [(feed: String, commit: FetchCommit)]) throws(FeedFailure) -> [Result<
        FeedRecord, FeedFailure
    >]
    /// `--keep` and `--remember`: the next commit of the feed prunes by them.
    func setRetention(feed: String, _ retention: Retention) throws(FeedFailure)
    /// Which of `ids` the feed knows: holds, or remembers from an entry retention pruned. The one
    /// place every walk and stream asks "is this new", so a pruned entry is never delivered again.
    func knownIDs(feed: String, among ids: [String]) throws(FeedFailure) -> Set<String>
    /// The id of the feed's entry stored last (the newest a stream delivered), nil when it has none.
    func newestEntryID(feed: String) throws(FeedFailure) -> String?
    /// Gives entries the numbers (handles) they will be stored under, before they are printed.
    func number(_ entries: [Entry], backfill: Bool) throws(FeedFailure) -> [Entry]
    /// Records a failed fetch; nothing else changes.
    func recordFailure(feed: String, _ failure: FeedFailure, at time: Date, retryNotBefore: Date?) throws(FeedFailure)
        -> FeedRecord
    /// A mark that changes when another connection (another process) committed to the store,
    /// cheap enough to read every second; nil when the store cannot tell. A `follow` of every
    /// feed reads the feeds again when it changes (a feed added, removed or changed meanwhile).
    func changeMark() throws(FeedFailure) -> Int64?
    /// Forgets the feed's last error (a delivery its `--exec` command refused went through at
    /// last); the record after it.
    func clearLastError(feed: String) throws(FeedFailure) -> FeedRecord
    /// Records the title the feed's source gives itself (what exports and OPML name it by).
    func setSourceTitle(feed: String, _ title: String) throws(FeedFailure)
    /// Makes this run the owner of `feed` when no other run is: a `follow` holds it for its
    /// session, and no other run fetches the feed meanwhile (`ownerElsewhere`). Nil when another
    /// run owns it. Owning is apart from the feed's lock, which the owner still takes for each
    /// round or commit.
    func attemptOwnership(feed: String) throws(FeedFailure) -> (any HeldFeedLock)?
    /// The run that owns `feed`, in words for a message ("feedcli follow (pid 4242)"), when it
    /// is not this one; nil when no run does.
    func ownerElsewhere(feed: String) throws(FeedFailure) -> String?
}

extension FeedStoring {
    public var locksNeedKnownFeeds: Bool { true }

    /// A store that cannot tell has its feeds read again at a slower pace.
    public func changeMark() throws(FeedFailure) -> Int64? { nil }

    /// A store of one process (in memory): no other run can own a feed.
    public func attemptOwnership(feed: String) throws(FeedFailure) -> (any HeldFeedLock)? { OwnershipOfOneProcess() }

    public func ownerElsewhere(feed: String) throws(FeedFailure) -> String? { nil }

    /// Runs `body` holding the feed's lock (taken as `lock(feed:)` takes it, waiting as
    /// configured), and lets it go when `body` returns or throws: a command that changes a feed
    /// under a run's feet (replacing or removing it) waits for that run, and never holds the lock
    /// longer than the change.
    public func withFeedLock<T>(_ feed: String, _ body: () throws(FeedFailure) -> T) throws(FeedFailure) -> T {
        let lock = try self.lock(feed: feed)
        return try withExtendedLifetime(lock) { () throws(FeedFailure) -> T in try body() }
    }

    public func attemptLockReading(feed: String) throws(FeedFailure) -> (
        lock: any HeldFeedLock, record: Result<FeedRecord, FeedFailure>
    )? {
        guard let lock = try attemptLock(feed: feed) else { return nil }
        return (lock, Result { () throws(FeedFailure) in try self.feed(named: feed) })
    }

    /// A store that cannot tell whether it changed lists feeds without a mark, and reads every
    /// listed feed again.
    public func listedFeeds() throws(FeedFailure) -> [ListedFeed] {
        try feeds().map { ListedFeed(record: $0, version: nil) }
    }

    public func feed(_ listed: ListedFeed) throws(FeedFailure) -> FeedRecord {
        try feed(named: listed.record.name)
    }

    /// The entries of `entries` whose id the feed does not hold yet, in order, each id once.
    public func unstored(feed: String, _ entries: [Entry]) throws(FeedFailure) -> [Entry] {
        let stored = try knownIDs(feed: feed, among: entries.map(\.id))
        var seen = Set<String>()
        return entries.filter { !stored.contains($0.id) && seen.insert($0.id).inserted }
    }
}

/// The ownership of a feed in a store no other process reaches: nothing to let go.
private final class OwnershipOfOneProcess: HeldFeedLock {}
