/// What happened, as `reduce` learns it. Every change of `FeedReactorState` comes through one of
/// these.
public enum FeedMutation: Sendable, Equatable {
    /// A new action begins: forget the previous action's output and failures.
    case actionStarted
    /// The store's view of a feed (registration, cursors, counts, last error).
    case loaded(FeedRecord)
    case activity(feed: String, FeedActivity)
    /// `next` handed this entry to the user (it is already marked read in the store).
    case delivered(Entry)
    /// A fetch committed: the entries that were new (oldest first) and its bookkeeping.
    case stored(feed: String, entries: [Entry], FetchCommit)
    /// The server had nothing new (a 404 at the next index, a 304, or only known entries).
    case upToDate(feed: String)
    /// The feed was not fetched: its server asked not to be asked before `until`.
    case skipped(feed: String, until: String)
    /// Fetching or storing failed; nothing of the feed's cursor changed. `retryNotBefore` is set
    /// when the server sent `Retry-After`.
    case failed(feed: String?, FeedFailure, retryNotBefore: String?)
}

/// What the reactor is doing for a feed right now, for the progress line.
public enum FeedActivity: Sendable, Equatable {
    case idle
    /// Waiting for another feedcli run on this feed to finish.
    case waitingForLock
    /// Reading the store.
    case delivering
    /// Requesting `url`, the `page`th request of this walk (1-based).
    case fetching(url: String, page: Int)
}
