import FeedKinds
import FeedModel
import FeedReactive
import FeedStoreContract
import FoundationEssentials
import Glibc

/// The reactor behind `next`, `sync` and `status`.
///
/// `mutate` orchestrates; the feed kinds' strategies (`IndexedSync`, `PagedSync`) fetch. Each
/// feed's work runs under its cross-process lock and ends in `.activity(.idle)`. New entries go
/// through one delivery step: printed through `environment.output` first, then committed as far
/// as they got out, so nothing unprinted is ever committed. A feed's failure is recorded in the
/// store and becomes `.failed`, and a multi-feed action goes on with the next feed; a failure of
/// the output, or an interruption, stops the whole run.
///
/// Threading: waiting for a lock happens on the environment's lock queue; responses, store work
/// and printing happen where the fetcher delivers (the live one: a work queue); the HTTP
/// client's thread only drives curl. With an in-memory store and a synchronous fetcher, a whole
/// action runs on the caller's thread.
public struct FeedReactor: Reactor {
    public let environment: FeedEnvironment
    public let initialState = FeedReactorState()
    /// Writes the bookkeeping of quiet feeds together (see `GroupCommit`).
    package let groupCommit: GroupCommit
    /// The numbers of entries a delivery did not take, for their next try (see `KeptNumbers`).
    package let keptNumbers = KeptNumbers()

    public init(environment: FeedEnvironment) {
        self.environment = environment
        groupCommit = GroupCommit(store: environment.store, queue: environment.commitQueue)
    }

    /// The progress line is drawn from the state stream: it sees every state, in order, on the
    /// thread that produced it, and costs nothing when there is no terminal to draw on.
    public func transform(state: Observable<FeedReactorState>) -> Observable<FeedReactorState> {
        guard let progress = environment.progress else { return state }
        return state.handleEvents(
            onNext: { progress.update($0) }, onFailed: { _ in progress.clear() },
            onCompleted: { progress.clear() })
    }

    public func mutate(action: FeedAction) -> Observable<FeedMutation> {
        let work: Observable<FeedMutation>
        switch action {
        case .next(let feed?):
            work = waitingForOwner(underFeedLock(feed) { record in try next(record) })
        case .next(nil):
            let store = environment.store
            work = .deferred {
                let names = try store.feeds().map(\.name)
                if names == [FeedRegistration.defaultFeed.name] {
                    return waitingForOwner(
                        underFeedLock(FeedRegistration.defaultFeed.name, listed: true) { record in try next(record) })
                }
                return nextOfAll(nil, names: names)
            }
        case .nextOfAll(let feeds):
            let store = environment.store
            work = .deferred {
                if feeds.isEmpty { return nextOfAll(nil, names: try store.feeds().map(\.name)) }
                for feed in feeds { _ = try store.feed(named: feed) }  // an unknown name is 66 before anything
                return nextOfAll(feeds, names: feeds)
            }
        case .sync(let names):
            work = .deferred {
                names.isEmpty
                    // A plain `sync` skips feeds polled more recently than their `--every`.
                    ? syncAll(
                        listed: try environment.store.listedFeeds(), printing: true,
                        respectsEvery: !environment.options.force)
                    : syncAll(names, listed: false, printing: true)
            }
        case .follow(let names, let limits):
            work = follow(names, limits: limits)
        case .loadStatus(let names):
            work = .deferred {
                let records =
                    try names.isEmpty
                    ? environment.store.feeds()
                    : names.map { name throws(FeedFailure) in try environment.store.feed(named: name) }
                return .from(records.map(FeedMutation.loaded))
            }
        }
        return .concat([.just(.actionStarted), work])
    }

    // MARK: next

    /// The oldest unread entry of `feeds` (all when nil; `names` are their names) by publication;
    /// when none is unread, a quiet sync of those that are due (`--every`, unless `--force`),
    /// then the oldest of what it stored.
    package func nextOfAll(_ feeds: [String]?, names: [String]) -> Observable<FeedMutation> {
        let store = environment.store
        return .deferred {
            if let oldest = try store.oldestUnread(feeds: feeds) {
                return waitingForOwner(underFeedLock(oldest.feed, listed: true) { record in try next(record) })
            }
            return .concat([
                syncAll(names, listed: feeds == nil, printing: false, respectsEvery: !environment.options.force),
                .deferred {
                    try store.oldestUnread(feeds: feeds).map { oldest in
                        waitingForOwner(underFeedLock(oldest.feed, listed: true) { record in try next(record) })
                    } ?? .empty()
                },
            ])
        }
    }

    /// Delivers the oldest unread entry; with none, fetches (indexed: the next post; paged: a
    /// sync that stores unread, then the oldest of those).
    package func next(_ record: FeedRecord) throws -> Observable<FeedMutation> {
        let store = environment.store
        // The record, read under the lock, counts the feed's unread entries: with none, there
        // is nothing to look for (a round trip of every `next` on a store across a network).
        if record.unread > 0, let entry = try store.oldestUnread(feed: record.name) { return try deliverStored(entry) }
        if let until = retryNotBefore(record) { return .just(.skipped(feed: record.name, until: until)) }
        try checkOwner(of: record.name)  // nothing stored to deliver: a fetch, which the owner's alone
        guard record.registration.kind == .indexed else {
            return .concat([
                sync(record, printing: false),
                .deferred { try store.oldestUnread(feed: record.name).map(deliverStored) ?? .empty() },
            ])
        }
        return mutations(ofSteps: indexed(record).next(), feed: record.name, printing: true, marksDelivered: true)
    }

    /// Prints a stored entry, then marks it read.
    package func deliverStored(_ entry: Entry) throws -> Observable<FeedMutation> {
        var entry = entry
        entry.read = true
        let report = environment.output.deliver([entry])
        if let failure = report.failure, report.delivered == 0 {
            throw Self.stop(
                failure,
                unprinted: "the entry \(entry.feed)/\(entry.id) was not marked read; "
                    + "the next `feedcli next` delivers it again")
        }
        var record = try environment.store.markDelivered(feed: entry.feed, id: entry.id)
        // The refusal this delivery's command made before is over: `status` must not show it.
        if record.lastErrorCode == FeedFailure.commandFailed("").exitCode,
            record.lastError?.hasPrefix(FeedFailure.commandRefusalPrefix) == true
        {
            record = try environment.store.clearLastError(feed: entry.feed)
        }
        return .from([.delivered(entry), .loaded(record)])
    }

    // MARK: sync

    /// Syncs `feeds`, up to `--jobs` at once; `listed`: the names were just read from the store.
    package func syncAll(_ feeds: [String], listed: Bool, printing: Bool, respectsEvery: Bool = false) -> Observable<
        FeedMutation
    > {
        Observable.from(feeds).flatMap(.merge(maxConcurrent: environment.options.jobs)) { feed in
            waitingForOwner(
                underFeedLock(feed, listed: listed) { record in
                    syncIfDue(record, printing: printing, respectsEvery: respectsEvery)
                })
        }
    }

    /// `syncAll` of feeds just listed with their records.
    package func syncAll(listed feeds: [ListedFeed], printing: Bool, respectsEvery: Bool) -> Observable<FeedMutation> {
        Observable.from(feeds).flatMap(.merge(maxConcurrent: environment.options.jobs)) { feed in
            waitingForOwner(
                underFeedLock(feed) { record in syncIfDue(record, printing: printing, respectsEvery: respectsEvery) })
        }
    }

    private func syncIfDue(_ record: FeedRecord, printing: Bool, respectsEvery: Bool) -> Observable<FeedMutation> {
        if respectsEvery, let until = record.notDue(at: environment.now()) {
            return .just(.skipped(feed: record.name, until: until))
        }
        return sync(record, printing: printing)
    }

    /// Fetches what is new of one feed, prints it (when `printing`, at most what `budget` allows)
    /// and commits what was printed.
    package func sync(_ record: FeedRecord, printing: Bool, budget: EntryBudget? = nil) -> Observable<FeedMutation> {
        if let failure = record.unknownKindFailure { return .fail(failure) }
        if let until = retryNotBefore(record) { return .just(.skipped(feed: record.name, until: until)) }
        do { try checkOwner(of: record.name) } catch { return .fail(error) }  // the owner's to fetch
        let steps: Observable<SyncStep>
        if record.registration.kind.isStream {
            steps = .concat([retentionNotice(record), syncStream(record)])
        } else if let format = record.registration.pageFormat(jq: environment.options.jq.forOneRun()) {
            let store = environment.store
            let name = record.name
            steps = PagedSync(
                fetcher: environment.fetcher, format: format, record: record,
                maxPages: environment.options.maxPages ?? record.registration.kind.defaultMaxPages,
                now: environment.now,
                knownIDs: { ids in try store.knownIDs(feed: name, among: ids) }
            ).sync()
        } else {
            steps = indexed(record).sync()
        }
        return mutations(ofSteps: steps, feed: record.name, printing: printing, marksDelivered: false, budget: budget)
    }

    package func indexed(_ record: FeedRecord) -> IndexedSync {
        let store = environment.store
        let name = record.name
        return IndexedSync(
            fetcher: environment.fetcher, record: record,
            maxRequests: environment.options.maxPages ?? FeedKind.indexed.defaultMaxPages,
            filter: record.registration.itemFilter(jq: environment.options.jq.forOneRun()),
            now: environment.now, unstored: { entries in try store.unstored(feed: name, entries) })
    }

}

extension FeedFailure {
    /// Failures that end the whole run rather than one feed: the output is gone, or the user
    /// interrupted.
    package var stopsTheRun: Bool {
        switch self {
        case .output, .interrupted: true
        default: false
        }
    }
}
