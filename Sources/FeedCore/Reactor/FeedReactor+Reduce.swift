import FeedModel
import FoundationEssentials

extension FeedReactor {
    /// Pure: the next state from the current state and one mutation. Per-feed records are
    /// assigned as the store returned them; nothing here recomputes what the store keeps. A
    /// feed's activity ends (`.idle`) with what ends a step of its work: its record read or
    /// written, a commit, a skip, a failure; no mutation of its own says so.
    public func reduce(state: inout FeedReactorState, mutation: FeedMutation) {
        switch mutation {
        case .actionStarted:
            state.revision += 1
            state.delivered = []
            state.newEntryCount = 0
            state.failure = nil
            for name in state.feeds.keys {
                state.feeds[name]?.failure = nil
                state.feeds[name]?.skippedUntil = nil
                state.feeds[name]?.warnings = []
            }
        case .loaded(let record):
            state.feeds[record.name, default: FeedStatus(name: record.name)].record = record
            state.feeds[record.name]?.activity = .idle
        case .activity(let feed, let activity):
            state.feeds[feed, default: FeedStatus(name: feed)].activity = activity
        case .delivered(let entry):
            state.delivered.append(entry)
        case .stored(let feed, let count, let record):
            state.newEntryCount += count
            state.feeds[feed, default: FeedStatus(name: feed)].record = record
            state.feeds[feed]?.activity = .idle
        case .skipped(let feed, let until):
            state.feeds[feed, default: FeedStatus(name: feed)].skippedUntil = until
            state.feeds[feed]?.activity = .idle
        case .warned(let feed, let message):
            state.feeds[feed, default: FeedStatus(name: feed)].warnings.append(message)
        case .failed(let feed, let failure):
            if let feed {
                state.feeds[feed, default: FeedStatus(name: feed)].failure = failure
                state.feeds[feed]?.activity = .idle
            } else {
                state.failure = failure
            }
        }
    }

    public func mutation(for error: any Error, action: FeedAction) -> FeedMutation {
        .failed(feed: nil, FeedFailure.wrap(error))
    }
}
