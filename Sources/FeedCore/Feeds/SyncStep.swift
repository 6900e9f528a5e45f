import FeedHTTP
import FeedModel
import FoundationEssentials

/// What a feed's fetching strategy reports while it runs: each request as it starts (for the
/// progress line), and each batch of new entries ready to be delivered and committed.
package indirect enum SyncStep: Sendable {
    case requesting(url: String, number: Int)
    case batch(FetchedBatch)
    /// Several batches of one feed, oldest first, delivered as one block and committed one by one.
    case batches(FetchedBatches)
    /// Something the user should hear about that does not fail the feed (one stderr line).
    case warning(String)
    /// The feed names itself otherwise than the store has it (a JSON Feed's `title`).
    case sourceTitle(String)
    /// A stream's connection is open and answered as a stream.
    case connected
    /// A stream's connection could not be made (or ended before it answered); the stream tries
    /// again after its backoff. The feed is failing until it connects.
    case connectionFailed(FeedFailure)
}

/// New entries and the bookkeeping that goes with them, not committed yet: the reactor first
/// delivers the entries (prints them), then commits what `commit(delivered:)` says for as many
/// as got out, so that nothing unprinted is committed and the next run goes on from there.
package struct FetchedBatch: Sendable {
    /// New entries, oldest first, none of them stored yet.
    package var entries: [Entry]
    /// The commit when every entry was delivered (also when there are none: a fetch that found
    /// nothing new still records its time and clears the last error).
    package var complete: FetchCommit
    /// The commit when only the first `k` entries (`0 < k < entries.count`) got out.
    package var partial: @Sendable (_ delivered: Int) -> FetchCommit
    /// A stream's receipts for the bytes the batch was read from (`StreamBacklog`): held until
    /// it is printed and committed, so that no more is read from the server meanwhile (a huge
    /// message is stored before the next one is taken in).
    package var receipts: [StreamReceipt] = []

    package init(entries: [Entry], complete: FetchCommit, partial: @escaping @Sendable (Int) -> FetchCommit) {
        self.entries = entries
        self.complete = complete
        self.partial = partial
    }

    /// A batch that commits only when all of it (at most one entry, or none) got out.
    package init(entries: [Entry], complete: FetchCommit) {
        self.init(entries: entries, complete: complete, partial: { _ in complete })
    }

    /// What to commit when `delivered` entries got out; nil when nothing may be committed.
    package func commit(delivered: Int) -> FetchCommit? {
        if delivered >= entries.count { return complete }
        return delivered == 0 ? nil : partial(delivered)
    }
}

/// Batches of one feed's new entries, oldest first, each made only when it is delivered (so a
/// walk that found a million entries never holds them all at once).
package struct FetchedBatches: Sendable {
    package let count: Int
    /// The batch at `index` (`0..<count`).
    package let batch: @Sendable (_ index: Int) -> FetchedBatch
}
