import FeedModel
import FoundationEssentials

extension FeedReactor {
    /// Pure: the next state from the current state and one mutation. Per-feed records are
    /// assigned as the store returned them; nothing here recomputes what the store keeps. A
    /// feed's activity ends (`.idle`) with what ends a step of its work: its record read or
    /// written, a commit, a skip, a failure; no mutation of its own says so. A feed's failure
    /// stands until the feed succeeds again (a commit, a stream connected): what a long `follow`
    /// ends with is the state its feeds are in then.
    public func reduce(state: inout FeedReactorState, mutation: FeedMutation) {
        // One look-up of a feed's status for all a mutation changes in it.
        func change(_ feed: String, _ body: (inout FeedStatus) -> Void) {
            body(&state.feeds[feed, default: FeedStatus(name: feed)])
        }
        switch mutation {
        case .actionStarted:
            state.revision += 1
            state.delivered = []
            state.newEntryCount = 0
            state.failure = nil
            for name in state.feeds.keys {
                state.feeds[name]?.failure = nil
                state.feeds[name]?.failuresInARow = 0
                state.feeds[name]?.skippedUntil = nil
                state.feeds[name]?.warnings = []
                state.feeds[name]?.warningCount = 0
            }
        case .loaded(let record):
            change(record.name) {
                $0.record = record
                $0.activity = .idle
            }
        case .activity(let feed, let activity):
            change(feed) { $0.activity = activity }
        case .delivered(let entry):
            state.delivered.append(entry)
        case .stored(let feed, let count, let record):
            state.newEntryCount += count
            change(feed) {
                $0.record = record
                $0.activity = .idle
                $0.failure = nil
                $0.failuresInARow = 0
            }
        case .connected(let feed):
            change(feed) {
                $0.failure = nil
                $0.failuresInARow = 0
            }
        case .skipped(let feed, let until):
            change(feed) {
                $0.skippedUntil = until
                $0.activity = .idle
            }
        case .warned(let feed, let message):
            change(feed) {
                $0.warnings.append(message)
                $0.warningCount += 1
                if $0.warnings.count > FeedStatus.keptWarnings { $0.warnings.removeFirst() }
            }
        case .failed(let feed?, let failure):
            change(feed) {
                $0.failure = failure
                $0.failuresInARow += 1
                $0.activity = .idle
            }
        case .failed(nil, let failure):
            state.failure = failure
        }
    }

    public func mutation(for error: any Error, action: FeedAction) -> FeedMutation {
        .failed(feed: nil, FeedFailure.wrap(error))
    }
}
