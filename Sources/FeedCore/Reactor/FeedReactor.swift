import Foundation

/// The reactor behind `next`, `sync` and `status`.
///
/// `mutate` does all the I/O: it takes the feed's cross-process lock, reads and commits the store,
/// and fetches. Each feed's work ends in `.activity(.idle)`; a failure of a feed is recorded in the
/// store (error text, `Retry-After`) and becomes `.failed`, and a multi-feed action goes on with
/// the next feed.
public struct FeedReactor: Reactor {
    public let environment: FeedEnvironment
    public let initialState = FeedReactorState()

    /// Where a feed's work starts: waiting for its lock and reading the store block this queue,
    /// never the HTTP client's worker thread or the caller.
    private static let workQueue = DispatchQueue(label: "feedcli.reactor")

    public init(environment: FeedEnvironment) {
        self.environment = environment
    }

    public func mutate(action: FeedAction) -> Observable<FeedMutation> {
        let work: Observable<FeedMutation>
        switch action {
        case .next(let feed):
            work = perFeed(feed) { record in try deliverNext(record) }
        case .sync(let names):
            work = .deferred {
                let feeds = try names.isEmpty ? environment.store.feeds().map(\.name) : names
                return .concat(feeds.map { feed in perFeed(feed) { record in try sync(record) } })
            }
        case .loadStatus(let names):
            work = .deferred {
                let records = try names.isEmpty
                    ? environment.store.feeds()
                    : names.map { name throws(FeedFailure) in try environment.store.feed(named: name) }
                return .from(records.map(FeedMutation.loaded))
            }
        }
        return .concat([.just(.actionStarted), work])
    }

    /// Runs `body` for one feed under its cross-process lock, bracketed by activity mutations;
    /// records a failure in the store and turns it into `.failed`.
    private func perFeed(
        _ name: String, _ body: @escaping @Sendable (FeedRecord) throws -> Observable<FeedMutation>
    ) -> Observable<FeedMutation> {
        let store = environment.store
        let work = Observable<FeedMutation>.deferred {
            let lock = SubscriptionResource(try store.lock(feed: name))
            let record = try store.registration(named: name)
            return lock.bound(to: Observable.concat([
                .just(.loaded(record)),
                .just(.activity(feed: name, .delivering)),
                try body(record),
            ]))
        }
        .subscribe(on: Self.workQueue)
        .catch { error in .deferred { try recordFailure(error, feed: name) } }
        return .concat([
            .just(.activity(feed: name, .waitingForLock)),
            work,
            .just(.activity(feed: name, .idle)),
        ])
    }

    private func recordFailure(_ error: any Error, feed: String) throws -> Observable<FeedMutation> {
        let failure: FeedFailure
        var retryNotBefore: String?
        switch error {
        case let status as HTTPStatusFailure:
            failure = status.failure
            if let delay = status.retryAfter, [429, 503].contains(status.status) {
                retryNotBefore = Timestamp.format(environment.now().addingTimeInterval(Double(delay.components.seconds)))
            }
        case let http as HTTPError:
            failure = FeedFailure(http, url: "")
        default:
            failure = FeedFailure.wrap(error)
        }
        if case .notFound = failure {} else if failure != .interrupted {
            try? environment.store.recordFailure(
                feed: feed, failure, at: Timestamp.format(environment.now()), retryNotBefore: retryNotBefore)
        }
        return .just(.failed(feed: feed, failure, retryNotBefore: retryNotBefore))
    }

    /// True while the server's `Retry-After` still holds (and `--force` was not given).
    private func isDeferred(_ record: FeedRecord) -> String? {
        guard !environment.options.force, let until = record.retryNotBefore,
              let date = Timestamp.parse(until), date > environment.now() else { return nil }
        return until
    }

    // MARK: next

    private func deliverNext(_ record: FeedRecord) throws -> Observable<FeedMutation> {
        let store = environment.store
        if let entry = try store.deliverNext(feed: record.name) {
            return .just(.delivered(entry))
        }
        if let until = isDeferred(record) { return .just(.skipped(feed: record.name, until: until)) }
        switch record.registration.kind {
        case .indexed:
            return fetchIndexed(record, index: record.nextIndex, markRead: true)
                .map { mutation in
                    guard case .stored(_, let entries, _) = mutation, let entry = entries.first else { return [mutation] }
                    return [mutation, .delivered(entry)]
                }
                .flatMap(.concat) { Observable.from($0) }
        case .graph, .jsonfeed, .linked:
            return .concat([
                try sync(record),
                .deferred { try store.deliverNext(feed: record.name).map { .just(.delivered($0)) } ?? .empty() },
            ])
        }
    }

    /// Requests index `index` of an `indexed` feed: a post is committed (with the cursor moved
    /// past it) and emitted as `.stored`; a 404 is `.upToDate`.
    private func fetchIndexed(_ record: FeedRecord, index: Int, markRead: Bool) -> Observable<FeedMutation> {
        let url = IndexedFeed.url(base: record.registration.url, index: index)
        let environment = self.environment
        return .concat([
            .just(.activity(feed: record.name, .fetching(url: url, page: 1))),
            environment.fetcher.get(url, feed: record.registration, acceptsNotFound: true)
                .map { response throws(FeedFailure) -> FeedMutation in
                    if response.status == 404 { return .upToDate(feed: record.name) }
                    let item = try IndexedFeed.item(from: response)
                    let now = Timestamp.format(environment.now())
                    let commit = FetchCommit(fetchedAt: now, nextIndex: max(index, Int(item.id) ?? index) + 1)
                    let entry = item.entry(feed: record.name, fetchedAt: now, read: markRead)
                    let stored = try environment.store.commitFetch(feed: record.name, entries: [entry], commit)
                    return .stored(feed: record.name, entries: stored, commit)
                },
        ])
    }

    // MARK: sync

    private func sync(_ record: FeedRecord) throws -> Observable<FeedMutation> {
        if let until = isDeferred(record) { return .just(.skipped(feed: record.name, until: until)) }
        throw FeedFailure.configuration("sync of \(record.registration.kind.rawValue) feeds is not built yet")
    }
}
