extension FeedReactor {
    /// Pure: the next state from the current state and one mutation.
    public func reduce(state: FeedReactorState, mutation: FeedMutation) -> FeedReactorState {
        var state = state
        switch mutation {
        case .actionStarted:
            state.revision += 1
            state.delivered = []
            state.newEntries = []
            state.failure = nil
            for name in state.feeds.keys {
                state.feeds[name]?.failure = nil
                state.feeds[name]?.isUpToDate = false
                state.feeds[name]?.skippedUntil = nil
            }
        case .loaded(let record):
            state.feeds[record.name, default: FeedStatus(name: record.name)].record = record
        case .activity(let feed, let activity):
            state.feeds[feed, default: FeedStatus(name: feed)].activity = activity
        case .delivered(let entry):
            state.delivered.append(entry)
            state.feeds[entry.feed, default: FeedStatus(name: entry.feed)].record?.lastReadID = entry.id
        case .stored(let feed, let entries, let commit):
            let newUnread = entries.filter { !$0.read }
            state.newEntries += newUnread
            var status = state.feeds[feed, default: FeedStatus(name: feed)]
            if var record = status.record {
                record.lastFetchAt = commit.fetchedAt
                record.lastError = nil
                record.lastErrorCode = nil
                record.retryNotBefore = nil
                if let nextIndex = commit.nextIndex { record.nextIndex = nextIndex }
                if let validators = commit.validators { record.validators = validators }
                if let resumeURL = commit.resumeURL { record.resumeURL = resumeURL }
                record.total += entries.count
                record.unread += newUnread.count
                status.record = record
            }
            state.feeds[feed] = status
        case .upToDate(let feed):
            state.feeds[feed, default: FeedStatus(name: feed)].isUpToDate = true
        case .skipped(let feed, let until):
            state.feeds[feed, default: FeedStatus(name: feed)].skippedUntil = until
        case .failed(let feed, let failure, let retryNotBefore):
            guard let feed else {
                state.failure = failure
                break
            }
            var status = state.feeds[feed, default: FeedStatus(name: feed)]
            status.failure = failure
            status.record?.lastError = failure.description
            status.record?.lastErrorCode = failure.exitCode
            if let retryNotBefore { status.record?.retryNotBefore = retryNotBefore }
            state.feeds[feed] = status
        }
        return state
    }

    public func mutation(for error: any Error, action: FeedAction) -> FeedMutation {
        .failed(feed: action.feeds.count == 1 ? action.feeds.first : nil, FeedFailure.wrap(error), retryNotBefore: nil)
    }
}
