import FeedModel
import FoundationEssentials

/// One bounded step of a feed's retention, as both stores take it in the commits `sync` and
/// `follow` make: which of the feed's oldest entries (by number, the order they were stored in)
/// go, and until when their ids are remembered.
///
/// Bounded so that no commit pauses a stream: at most `most` entries a step, or twice what the
/// commit stored when that is more, so that a stream at any rate is pruned as fast as it grows.
/// A feed set to keep far less than it holds sheds the rest over the next commits
/// (`feedcli store compact` sheds it at once).
package struct PruneStep: Equatable, Sendable {
    /// At most this many entries.
    package var limit: Int
    /// Only entries stored before this (the stores' text form of a time); nil: by count.
    package var storedBefore: String?
    /// Whether the ids are remembered (`--remember 0s` remembers nothing).
    package var remembers: Bool
    /// Until when, in seconds since 1970; nil: for ever.
    package var rememberUntil: Int64?

    /// The most entries a step prunes when the commit stored fewer than half as many.
    package static let most = 1024

    /// How many entries beyond a kept count wait for the next step: a 64th of the count, at
    /// most 1,024 (`store compact` waits for none). Steps of a thousand share their pages (the
    /// oldest entries', the indexes' ends) among ten times the entries that steps of a hundred did.
    package static func slack(keeping count: Int) -> Int { min(1024, max(1, count / 64)) }

    /// The step `record` (as the commit left it) needs at `now`, having stored `stored` entries;
    /// nil when it keeps everything it holds. `limit` overrides the bound (`store compact`).
    package static func plan(_ record: FeedRecord, now: Date, stored: Int, limit: Int? = nil) -> PruneStep? {
        let bound = limit ?? max(most, stored.multipliedReportingOverflow(by: 2).partialValue)
        let remember = record.retention.remember
        let remembers = remember != .for(.zero)
        let until = remember.until(now).map { Int64($0.timeIntervalSince1970.rounded(.up)) }
        switch record.retention.keep {
        case .all:
            return nil
        case .newest(let count):
            let excess = record.total - count
            // A step of one entry a commit cost a stream more than storing it (a statement's own
            // cost, paid per commit): a feed holds up to `slack` more before a step takes them.
            guard excess > 0, excess >= slack(keeping: count) || limit != nil else { return nil }
            return PruneStep(limit: min(excess, bound), storedBefore: nil, remembers: remembers, rememberUntil: until)
        case .storedWithin(let duration):
            // The newest entry always stays (where a stream's catch-up resumes): more than one.
            guard record.total > 1 else { return nil }
            let cutoff = Timestamp.format(now.addingTimeInterval(-Double(duration.components.seconds)))
            return PruneStep(limit: bound, storedBefore: cutoff, remembers: remembers, rememberUntil: until)
        }
    }
}

/// What a prune step did: the entries it removed, and how many of them were unread.
public struct PruneOutcome: Equatable, Sendable {
    public var pruned = 0
    public var unread = 0
    /// The read ones among `pruned`.
    public var read: Int { pruned - unread }

    package init(pruned: Int = 0, unread: Int = 0) {
        self.pruned = pruned
        self.unread = unread
    }
}
