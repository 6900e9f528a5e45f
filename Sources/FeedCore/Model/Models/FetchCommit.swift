import FoundationEssentials

/// What a successful fetch changes, committed together with its entries in one transaction.
public struct FetchCommit: Sendable, Equatable {
    /// What to do with the backfill cursor (`resume_url`).
    public enum Cursor: Sendable, Equatable {
        case keep
        case set(String)
        case clear
    }

    public var fetchedAt: Date
    /// New `next_index` of an `indexed` feed; nil leaves it.
    public var nextIndex: Int?
    /// New validators of the first page; nil leaves them.
    public var validators: Validators?
    public var resume: Cursor
    /// The entries are older than every stored entry of the feed (backfill): they are placed
    /// before them, so `next` still delivers oldest first.
    public var isBackfill: Bool
    /// Items of this fetch that had no usable id: the count `status` shows as the last sync's.
    public var skipped: SkipCount
    /// Items of this fetch the feed's `--filter` kept out, and items it let through (new or
    /// already stored): `status` marks a feed whose last sync's filter kept out everything.
    public var filtered: SkipCount
    public var kept: SkipCount
    /// A stream feed's position after this commit (its last event id and the time of its last
    /// event); nil leaves it.
    public var stream: StreamPosition?

    /// How a commit changes one of the feed's counts of its last sync (skipped, filtered, kept).
    public enum SkipCount: Sendable, Equatable {
        /// The first commit of a sync: the count starts here.
        case set(Int)
        /// A later commit of the same sync (a backfill walk, another batch).
        case add(Int)
    }

    public init(
        fetchedAt: Date, nextIndex: Int? = nil, validators: Validators? = nil, resume: Cursor = .keep,
        isBackfill: Bool = false, skipped: SkipCount = .set(0), filtered: SkipCount = .set(0),
        kept: SkipCount = .set(0),
        stream: StreamPosition? = nil
    ) {
        self.fetchedAt = fetchedAt
        self.nextIndex = nextIndex
        self.validators = validators
        self.resume = resume
        self.isBackfill = isBackfill
        self.skipped = skipped
        self.filtered = filtered
        self.kept = kept
        self.stream = stream
    }
}
