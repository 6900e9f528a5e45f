import FeedModel
import FeedReactor
import FeedStoreContract
import FoundationEssentials

/// `feeds add|import --from-now`: what a feed holds when it is added is taken as already
/// delivered, so that the first start of a notification service does not send the backlog.
///
/// A polled feed (or a stream that replays from its start) is fetched once, at once, by a sync
/// whose output takes every entry and prints none; its entries are then marked read, and its
/// backfill cursor cleared (no later sync walks back into what it held). A stream that starts
/// live by itself (Mastodon and Wikimedia without a `--catch-up` URL) needs nothing; a Jetstream
/// or Nostr feed gets the position now. A feed whose first fetch fails is removed again: a
/// later first fetch would deliver the backlog, which is what the user asked not to get.
extension CommandContext {
    /// Takes `names`' present entries as delivered; the feeds whose first fetch failed, with why
    /// (removed again when `removesFailed`: feeds just added). `said` reports each feed's outcome
    /// (one stderr line).
    func startFromNow(_ names: [String], removesFailed: Bool, said: (String) -> Void) throws -> [(
        feed: String, failure: FeedFailure
    )] {
        let store = try openStore()
        let now = self.now()
        var fetched: [String] = []
        for name in names {
            let record = try store.feed(named: name)
            let registration = record.registration
            switch registration.kind {
            case .jetstream, .nostr:
                let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
                let position = registration.kind == .jetstream ? String(seconds * 1_000_000) : String(seconds)
                _ = try store.commitFetch(
                    feed: name, entries: [],
                    FetchCommit(fetchedAt: now, stream: StreamPosition(lastEventID: position, lastEventAt: now)))
                said("\(name) starts at the live position (--from-now)")
            case .mastodon where registration.expressions.catchUp == nil,
                .wikimedia where registration.expressions.catchUp == nil:
                said("\(name) starts live (--from-now)")
            default:
                fetched.append(name)
            }
        }
        guard !fetched.isEmpty else { return [] }
        let state = try runReactor(.sync(feeds: fetched), output: TakingEverything(), progress: nil)
        if let failure = state.failure { throw failure }
        var failed: [(feed: String, failure: FeedFailure)] = []
        for name in fetched {
            if let failure = state.feeds[name]?.failure {
                failed.append((name, failure))
                if removesFailed {
                    try store.withFeedLock(name) { () throws(FeedFailure) in try store.removeFeed(named: name) }
                }
                continue
            }
            _ = try store.commitFetch(feed: name, entries: [], FetchCommit(fetchedAt: now, resume: .clear))
            let count = try store.markAllRead(feeds: [name])
            said("\(name): \(count == 1 ? "1 entry" : "\(count) entries") there now taken as read (--from-now)")
        }
        return failed
    }
}

/// The output of a `--from-now` first fetch: it takes every entry and shows none.
private struct TakingEverything: EntryOutput {
    func deliver(_ entries: [Entry]) -> DeliveryReport { DeliveryReport(delivered: entries.count) }
}
