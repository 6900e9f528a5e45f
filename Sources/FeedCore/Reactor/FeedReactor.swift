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
                return .concat(feeds.map { feed in perFeed(feed) { record in sync(record) } })
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
        default:
            failure = FeedFailure.wrap(error)
        }
        if case .notFound = failure {} else if failure != .interrupted {
            try? environment.store.recordFailure(
                feed: feed, failure, at: Timestamp.format(environment.now()), retryNotBefore: retryNotBefore)
        }
        return .just(.failed(feed: feed, failure, retryNotBefore: retryNotBefore))
    }

    /// The time the server asked not to be asked before, while it still holds (and `--force` was
    /// not given); nil when the feed may be fetched.
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
            return fetchIndexed(record, index: record.nextIndex).flatMap(.concat) { mutation in
                guard case .stored(_, let entries, _) = mutation, let entry = entries.first else { return .just(mutation) }
                return .from([mutation, .delivered(entry)])
            }
        case .graph, .jsonfeed, .linked:
            return .concat([
                sync(record),
                .deferred { try store.deliverNext(feed: record.name).map { .just(.delivered($0)) } ?? .empty() },
            ])
        }
    }

    /// Requests index `index` of an `indexed` feed for `next`: a post is committed already read
    /// (with the cursor moved past it) and emitted as `.stored`; a 404 is `.upToDate`.
    private func fetchIndexed(_ record: FeedRecord, index: Int) -> Observable<FeedMutation> {
        let url = IndexedFeed.url(base: record.registration.url, index: index)
        let environment = self.environment
        return .concat([
            .just(.activity(feed: record.name, .fetching(url: url, page: 1))),
            environment.fetcher.get(url, feed: record.registration, acceptsNotFound: true)
                .map { response throws(FeedFailure) -> FeedMutation in
                    if response.status == 404 { return .upToDate(feed: record.name) }
                    let item = try IndexedFeed.item(from: response)
                    let now = Timestamp.format(environment.now())
                    let commit = FetchCommit(fetchedAt: now, nextIndex: index + 1)
                    let entries = item.map { [$0.entry(feed: record.name, fetchedAt: now, read: true)] } ?? []
                    let stored = try environment.store.commitFetch(feed: record.name, entries: entries, commit)
                    return .stored(feed: record.name, entries: stored, commit)
                },
        ])
    }

    // MARK: sync

    /// Fetches what is new of one feed and commits it; `.stored` with the new entries, or
    /// `.upToDate`.
    private func sync(_ record: FeedRecord) -> Observable<FeedMutation> {
        if let until = isDeferred(record) { return .just(.skipped(feed: record.name, until: until)) }
        let maxPages = environment.options.maxPages ?? record.registration.kind.defaultMaxPages
        switch record.registration.kind {
        case .indexed: return syncIndexed(record, from: record.nextIndex, pagesLeft: maxPages, foundAny: false)
        case .graph: return syncPaged(record, format: GraphFeed(), maxPages: maxPages)
        case .jsonfeed: return syncPaged(record, format: JSONFeedKind(), maxPages: maxPages)
        case .linked: return syncPaged(record, format: LinkedFeed(), maxPages: maxPages)
        }
    }

    /// Requests the next indices of an `indexed` feed in windows, four in flight at a time (over
    /// the client's reused connections), stops at the first 404, and commits each window in index
    /// order with the cursor moved past it. The first window is 4 indices, so a polling run at the
    /// end of the feed costs 4 requests; each full window doubles the next (up to 64), so a long
    /// backlog pays few commits and few waits for a window's slowest request.
    private func syncIndexed(
        _ record: FeedRecord, from start: Int, pagesLeft: Int, foundAny: Bool, window size: Int = 4
    ) -> Observable<FeedMutation> {
        let count = min(size, pagesLeft)
        guard count > 0 else { return foundAny ? .empty() : .just(.upToDate(feed: record.name)) }
        let environment = self.environment
        let fetcher = environment.fetcher
        let window = Observable.from(Array(start..<(start + count)))
            .flatMap(.merge(maxConcurrent: 4)) { index in
                fetcher.get(IndexedFeed.url(base: record.registration.url, index: index),
                            feed: record.registration, acceptsNotFound: true)
                    .map { (index, $0) }
            }
            .toArray()
            .flatMap(.concat) { responses -> Observable<FeedMutation> in
                var items: [FeedItem] = []
                var found = 0
                for (_, response) in responses.sorted(by: { $0.0 < $1.0 }) {
                    guard response.status != 404 else { break }
                    found += 1
                    if let item = try IndexedFeed.item(from: response) { items.append(item) }
                }
                guard found > 0 else { return foundAny ? .empty() : .just(.upToDate(feed: record.name)) }
                let now = Timestamp.format(environment.now())
                let commit = FetchCommit(fetchedAt: now, nextIndex: start + found)
                let entries = items.map { $0.entry(feed: record.name, fetchedAt: now) }
                let stored = try environment.store.commitFetch(feed: record.name, entries: entries, commit)
                let mutation = FeedMutation.stored(feed: record.name, entries: stored, commit)
                guard found == count else { return .just(mutation) }
                return .concat([
                    .just(mutation),
                    syncIndexed(record, from: start + count, pagesLeft: pagesLeft - count, foundAny: true,
                                window: min(size * 2, 64)),
                ])
            }
        return .concat([
            .just(.activity(feed: record.name, .fetching(url: IndexedFeed.url(base: record.registration.url, index: start),
                                                       page: start - record.nextIndex + 1))),
            window,
        ])
    }

    /// Walks a paged feed from its URL (newest first) and commits what is new in one
    /// transaction, oldest first. A walk cut short by `--max-pages` leaves a backfill cursor;
    /// later runs spend their remaining page budget following it to older entries.
    private func syncPaged(_ record: FeedRecord, format: any PageFormat, maxPages: Int) -> Observable<FeedMutation> {
        let store = environment.store
        let now = environment.now
        let top = walker(record, format: format, maxPages: maxPages)
        return walk(top, record, from: record.registration.url, validators: record.validators, pageOffset: 0) { outcome in
            var mutations: [Observable<FeedMutation>] = []
            if !outcome.notModified {
                let cut = outcome.pages.last?.unfollowedNext
                let commit = FetchCommit(fetchedAt: Timestamp.format(now()), validators: outcome.pages.first?.validators,
                                         resumeURL: cut.map { .some($0) })
                let stored = try store.commitFetch(feed: record.name, entries: outcome.entries(record.name, commit), commit)
                mutations.append(.just(.stored(feed: record.name, entries: stored, commit)))
                if cut != nil { return .concat(mutations) }
            }
            let budget = maxPages - outcome.pagesRequested
            guard let resume = record.resumeURL, budget > 0 else {
                if outcome.pages.allSatisfy(\.fresh.isEmpty) { mutations.append(.just(.upToDate(feed: record.name))) }
                return .concat(mutations)
            }
            let back = walker(record, format: format, maxPages: budget)
            mutations.append(walk(back, record, from: resume, validators: nil, pageOffset: outcome.pagesRequested) { older in
                let commit = FetchCommit(fetchedAt: Timestamp.format(now()),
                                         resumeURL: .some(older.pages.last?.unfollowedNext), isBackfill: true)
                let stored = try store.commitFetch(feed: record.name, entries: older.entries(record.name, commit), commit)
                return .just(.stored(feed: record.name, entries: stored, commit))
            })
            return .concat(mutations)
        }
    }

    private func walker(_ record: FeedRecord, format: any PageFormat, maxPages: Int) -> PagingWalker {
        let store = environment.store
        return PagingWalker(fetcher: environment.fetcher, format: format, feed: record.registration, maxPages: maxPages,
                            storedIDs: { ids in try store.storedIDs(feed: record.name, among: ids) })
    }

    /// Runs one walk, reporting each request as activity, then hands what it found to `commit`.
    private func walk(
        _ walker: PagingWalker, _ record: FeedRecord, from url: String, validators: Validators?, pageOffset: Int,
        commit: @escaping @Sendable (WalkOutcome) throws -> Observable<FeedMutation>
    ) -> Observable<FeedMutation> {
        .deferred {
            let outcome = Accumulator(WalkOutcome())
            return .concat([
                walker.walk(from: url, validators: validators).compactMap { step -> FeedMutation? in
                    _ = outcome.update { $0.adding(step) }
                    guard case .requesting(let url, let number) = step else { return nil }
                    return .activity(feed: record.name, .fetching(url: url, page: pageOffset + number))
                },
                .deferred { try commit(outcome.current) },
            ])
        }
    }
}

/// What one walk found, gathered while it runs.
private struct WalkOutcome: Sendable {
    var pages: [PagingWalker.WalkedPage] = []
    var pagesRequested = 0
    var notModified = false

    func adding(_ step: PagingWalker.Step) -> WalkOutcome {
        var outcome = self
        switch step {
        case .requesting(_, let number): outcome.pagesRequested = number
        case .page(let page): outcome.pages.append(page)
        case .notModified: outcome.notModified = true
        }
        return outcome
    }

    /// The new entries, oldest first (walks see newest first).
    func entries(_ feed: String, _ commit: FetchCommit) -> [Entry] {
        pages.flatMap(\.fresh).reversed().map { $0.entry(feed: feed, fetchedAt: commit.fetchedAt) }
    }
}
