import FeedModel
import FoundationEssentials

/// The reactor's state: per feed, what the store says and what this run did; plus the entries
/// this action delivered.
public struct FeedReactorState: Sendable, Equatable {
    public var feeds: [String: FeedStatus] = [:]
    /// Entries `next` delivered in the current action.
    public var delivered: [Entry] = []
    /// How many entries `sync` (or a `next` that synced) stored in the current action. A count,
    /// not the entries: a sync of a million entries must not hold them all (they are printed
    /// and committed a batch at a time).
    public var newEntryCount = 0
    /// A failure that belongs to no single feed (the store could not be opened, the output could
    /// not be written, the user interrupted): the run stopped there.
    public var failure: FeedFailure?
    /// Counts actions started, so observers can tell one action's output from the next.
    public var revision = 0

    public init() {}

    /// Every failure of the current action.
    public var failures: [FeedFailure] {
        feeds.keys.sorted().compactMap { feeds[$0]?.failure } + (failure.map { [$0] } ?? [])
    }
}
