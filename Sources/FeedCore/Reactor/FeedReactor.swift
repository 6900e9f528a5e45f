import Foundation

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

    public init(environment: FeedEnvironment) {
        self.environment = environment
    }

    /// The progress line is drawn from the state stream: it sees every state, in order, on the
    /// thread that produced it, and costs nothing when there is no terminal to draw on.
    public func transform(state: Observable<FeedReactorState>) -> Observable<FeedReactorState> {
        guard let progress = environment.progress else { return state }
        return state.handleEvents(onNext: { progress.update($0) }, onFailed: { _ in progress.clear() },
                                  onCompleted: { progress.clear() })
    }

    public func mutate(action: FeedAction) -> Observable<FeedMutation> {
        let work: Observable<FeedMutation>
        switch action {
        case .next(let feed):
            work = perFeed(feed) { record in try next(record) }
        case .sync(let names):
            work = .deferred {
                let feeds = try names.isEmpty ? environment.store.feeds().map(\.name) : names
                return .concat(feeds.map { feed in perFeed(feed) { record in sync(record, printing: true) } })
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
    /// records a failure in the store and turns it into `.failed`. An unknown feed fails (66)
    /// before any file is touched.
    private func perFeed(
        _ name: String, _ body: @escaping @Sendable (FeedRecord) throws -> Observable<FeedMutation>
    ) -> Observable<FeedMutation> {
        let store = environment.store, onStep = environment.onStep
        var work = Observable<FeedMutation>.deferred {
            _ = try store.feed(named: name)
            let lock = SubscriptionResource(try store.lock(feed: name))
            onStep(.locked)
            let record = try store.feed(named: name)  // as it is now that this run holds the feed
            return lock.bound(to: Observable.concat([
                .just(.loaded(record)),
                .just(.activity(feed: name, .delivering)),
                try body(record),
            ]))
        }
        if let queue = environment.lockQueue { work = work.subscribe(on: queue) }
        work = work.catch { error in
            if let failure = error as? FeedFailure, failure.stopsTheRun { throw failure }
            return .deferred { recordFailure(error, feed: name) }
        }
        return .concat([.just(.activity(feed: name, .waitingForLock)), work, .just(.activity(feed: name, .idle))])
    }

    private func recordFailure(_ error: any Error, feed: String) -> Observable<FeedMutation> {
        var retryNotBefore: Date?
        if let status = error as? HTTPStatusFailure, let delay = status.retryAfter, [429, 503].contains(status.status) {
            retryNotBefore = environment.now().addingTimeInterval(Double(delay.components.seconds))
        }
        let failure = FeedFailure.wrap(error)
        if case .notFound = failure { return .just(.failed(feed: feed, failure)) }
        do {
            let record = try environment.store.recordFailure(
                feed: feed, failure, at: environment.now(), retryNotBefore: retryNotBefore)
            return .from([.loaded(record), .failed(feed: feed, failure)])
        } catch {
            return .from([.failed(feed: feed, failure), .failed(feed: nil, error)])
        }
    }

    /// The time the server asked not to be asked before, while it still holds (and `--force` was
    /// not given); nil when the feed may be fetched.
    private func retryNotBefore(_ record: FeedRecord) -> Date? {
        guard !environment.options.force, let until = record.retryNotBefore, until > environment.now() else { return nil }
        return until
    }

    // MARK: next

    /// Delivers the oldest unread entry; with none, fetches (indexed: the next post; paged: a
    /// sync that stores unread, then the oldest of those).
    private func next(_ record: FeedRecord) throws -> Observable<FeedMutation> {
        let store = environment.store
        if let entry = try store.oldestUnread(feed: record.name) { return try deliverStored(entry) }
        if let until = retryNotBefore(record) { return .just(.skipped(feed: record.name, until: until)) }
        guard record.registration.kind == .indexed else {
            return .concat([
                sync(record, printing: false),
                .deferred { try store.oldestUnread(feed: record.name).map(deliverStored) ?? .empty() },
            ])
        }
        return settle(indexed(record).next(), feed: record.name, printing: true, marksDelivered: true)
    }

    /// Prints a stored entry, then marks it read.
    private func deliverStored(_ entry: Entry) throws -> Observable<FeedMutation> {
        var entry = entry
        entry.read = true
        environment.onStep(.delivering)
        let report = environment.output.deliver([entry])
        environment.onStep(.delivered)
        if let failure = report.failure, report.delivered == 0 {
            throw Self.stop(failure, unprinted: "the entry \(entry.feed)/\(entry.id) was not marked read; "
                            + "the next `feedcli next` delivers it again")
        }
        let record = try environment.store.markDelivered(feed: entry.feed, id: entry.id)
        environment.onStep(.committed)
        return .from([.delivered(entry), .loaded(record)])
    }

    // MARK: sync

    /// Fetches what is new of one feed, prints it (when `printing`) and commits what was printed.
    private func sync(_ record: FeedRecord, printing: Bool) -> Observable<FeedMutation> {
        if let until = retryNotBefore(record) { return .just(.skipped(feed: record.name, until: until)) }
        let steps: Observable<SyncStep>
        if let format = record.registration.kind.pageFormat {
            let store = environment.store, name = record.name
            steps = PagedSync(fetcher: environment.fetcher, format: format, record: record,
                              maxPages: environment.options.maxPages ?? record.registration.kind.defaultMaxPages,
                              now: environment.now,
                              storedIDs: { ids in try store.storedIDs(feed: name, among: ids) }).sync()
        } else {
            steps = indexed(record).sync()
        }
        return settle(steps, feed: record.name, printing: printing, marksDelivered: false)
    }

    private func indexed(_ record: FeedRecord) -> IndexedSync {
        let store = environment.store, name = record.name
        return IndexedSync(fetcher: environment.fetcher, record: record,
                           maxRequests: environment.options.maxPages ?? FeedKind.indexed.defaultMaxPages,
                           now: environment.now, unstored: { entries in try store.unstored(feed: name, entries) })
    }

    // MARK: delivery

    /// Turns a strategy's steps into mutations: requests into activity, batches into delivery
    /// and commit.
    private func settle(
        _ steps: Observable<SyncStep>, feed: String, printing: Bool, marksDelivered: Bool
    ) -> Observable<FeedMutation> {
        steps.flatMap(.concat) { step -> Observable<FeedMutation> in
            switch step {
            case .requesting(let url, let number):
                return .just(.activity(feed: feed, .fetching(url: Redaction.maskingPasswords(in: url), page: number)))
            case .batch(let batch):
                return try deliverAndCommit(batch, feed: feed, printing: printing, marksDelivered: marksDelivered)
            }
        }
    }

    /// The delivery step: prints the batch's entries, commits as many as got out (with the
    /// cursor that goes with them), and stops the run when the output failed. No store
    /// transaction is open while printing, so a slow reader holds up no other run.
    private func deliverAndCommit(
        _ batch: FetchedBatch, feed: String, printing: Bool, marksDelivered: Bool
    ) throws -> Observable<FeedMutation> {
        environment.onStep(.fetched)
        var report = DeliveryReport(delivered: batch.entries.count)
        if printing, !batch.entries.isEmpty {
            environment.onStep(.delivering)
            report = environment.output.deliver(batch.entries)
            environment.onStep(.delivered)
        }
        var mutations: [FeedMutation] = []
        if let commit = batch.commit(delivered: report.delivered) {
            let outcome = try environment.store.commitFetch(
                feed: feed, entries: Array(batch.entries.prefix(report.delivered)), commit)
            environment.onStep(.committed)
            mutations.append(.stored(feed: feed, entries: outcome.entries, outcome.record))
            if marksDelivered { mutations += outcome.entries.map(FeedMutation.delivered) }
        }
        guard let failure = report.failure else { return .from(mutations) }
        let unprinted = marksDelivered
            ? "the entry was not stored; the next run fetches it again"
            : "\(report.delivered) of \(batch.entries.count) new entries of \(feed) were printed; "
                + "the rest come again with the next sync"
        return .concat([.from(mutations), .fail(Self.stop(failure, unprinted: unprinted))])
    }

    /// The failure that stops a run whose output failed or was interrupted.
    private static func stop(_ failure: DeliveryReport.Failure, unprinted: String) -> FeedFailure {
        switch failure {
        case .interrupted: .interrupted
        case .output(let error): .output("cannot write to stdout (\(error)): \(unprinted)")
        }
    }
}

extension FeedFailure {
    /// Failures that end the whole run rather than one feed: the output is gone, or the user
    /// interrupted.
    var stopsTheRun: Bool {
        switch self {
        case .output, .interrupted: true
        default: false
        }
    }
}
