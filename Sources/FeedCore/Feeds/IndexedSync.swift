import FeedBase
import FeedModel
import FeedReactive
import FoundationEssentials
import Glibc

/// Fetching an `indexed` feed: `GET {url}/{n}` for the next indices, stopping at the first 404.
///
/// `sync` keeps up to four requests in flight (over the client's reused connections) in a
/// sliding window: a new index is requested as soon as one answers, also while a batch is being
/// committed (up to a batch of answers ahead, `InOrderRequests`), and answers are taken in
/// index order. A feed polled before asks one index first and widens only when it finds a post,
/// so a quiet feed costs one request per poll. Posts are delivered and committed in batches of up
/// to `batchSize`, while later requests are already in flight; a batch moves the cursor past the
/// indices it answered, and delivered in part, the cursor stops at the first undelivered post.
///
/// `next` requests one index at a time until it finds a post not stored yet (the entry comes
/// marked read) or a 404. Posts without a usable id, or already stored under their id, are
/// skipped: the cursor moves by the index requested, never by a post's own id.
package struct IndexedSync: Sendable {
    package let fetcher: any FeedFetching
    package let record: FeedRecord
    package let maxRequests: Int
    /// The feed's `--filter`: a post that does not pass is skipped like one without an id.
    package let filter: ItemFilter?
    package let now: @Sendable () -> Date
    /// The entries whose ids the store does not hold yet.
    package let unstored: @Sendable ([Entry]) throws -> [Entry]
    package var inFlight = 4
    package var batchSize = 64

    private var feed: FeedRegistration { record.registration }

    private func url(_ index: Int) -> String { IndexedFeed.url(base: feed.url, index: index) }

    package func sync() -> Observable<SyncStep> {
        let start = record.nextIndex
        let feed = self.feed
        let now = self.now
        let unstored = self.unstored
        let batchSize = self.batchSize
        let maxRequests = self.maxRequests
        let filter = self.filter
        let fetcher = self.fetcher
        // Answers wait at most a batch ahead of the one being committed.
        let answers = InOrderRequests(
            start: start, count: maxRequests, inFlight: inFlight, probesFirst: record.lastFetchAt != nil,
            lookahead: batchSize,
            request: { index in
                fetcher.getAsAnswered(IndexedFeed.url(base: feed.url, index: index), feed: feed, acceptsNotFound: true)
            },
            handOver: { fetcher.handOver($0) })
        return .deferred {
            let pending = Locked(Pending())
            // Turns what has been gathered into a batch; `final` also when nothing was found.
            @Sendable func flush(final: Bool) throws -> Observable<SyncStep> {
                let gathered = pending.withLock { pending -> Pending in
                    defer {
                        pending.entries = []
                        pending.indices = []
                        pending.flushed = true
                        pending.skipped = 0
                        pending.filtered = 0
                        pending.kept = 0
                        pending.batches += 1
                    }
                    return pending
                }
                guard
                    !gathered.entries.isEmpty || (final && !gathered.flushed)
                        || gathered.answered > gathered.committedUpTo
                else { return .empty() }
                let fetchedAt = now()
                let time = Timestamp.format(fetchedAt)
                var stamped = gathered.entries
                for index in stamped.indices { stamped[index].fetchedAt = time }
                let new = try unstored(stamped)
                let newIndices = new.map { entry in gathered.indices[stamped.firstIndex { $0.id == entry.id } ?? 0] }
                let next = gathered.answered > 0 ? start + gathered.answered : nil
                pending.withLock { $0.committedUpTo = gathered.answered }
                // The first batch of the sync starts the counts of skipped, filtered and kept
                // posts; later ones add.
                func change(_ count: Int) -> FetchCommit.SkipCount { gathered.batches == 0 ? .set(count) : .add(count) }
                let (skipped, filtered, kept) = (
                    change(gathered.skipped), change(gathered.filtered), change(gathered.kept)
                )
                return .just(
                    .batch(
                        FetchedBatch(
                            entries: new,
                            complete: FetchCommit(
                                fetchedAt: fetchedAt, nextIndex: next, skipped: skipped, filtered: filtered, kept: kept),
                            partial: { delivered in
                                FetchCommit(
                                    fetchedAt: fetchedAt, nextIndex: newIndices[delivered], skipped: skipped,
                                    filtered: filtered, kept: kept)
                            })))
            }
            return .concat([
                answers.observable.flatMap(.concat) { index, response -> Observable<SyncStep> in
                    let (item, skipped) = try IndexedFeed.item(from: response, index: index, passing: filter)
                    let full = pending.withLock { pending -> Bool in
                        pending.answered = index - start + 1
                        if let item {
                            pending.entries.append(item.entry(feed: feed.name, fetchedAt: ""))
                            pending.indices.append(index)
                        }
                        if skipped != nil { pending.skipped += 1 }
                        if item != nil { pending.kept += 1 } else if skipped == nil { pending.filtered += 1 }
                        return pending.entries.count >= batchSize
                    }
                    var steps: [Observable<SyncStep>] = [
                        .just(.requesting(url: IndexedFeed.url(base: feed.url, index: index), number: index))
                    ]
                    if let skipped { steps.append(.just(.warning(skipped.message))) }
                    if full { steps.append(try flush(final: false)) }
                    return .concat(steps)
                },
                .deferred {
                    let foundNothing = pending.withLock { $0.answered == 0 && $0.batches == 0 }
                    return .concat([
                        (foundNothing ? neverFound.map { Observable.just($0) } : nil) ?? .empty(),
                        try flush(final: true),
                    ])
                },
            ])
        }
    }

    /// What a sync has gathered and not yet handed on as a batch.
    private struct Pending: Sendable {
        var entries: [Entry] = []
        var indices: [Int] = []
        /// How many indices from `start` have answered with a post (contiguously).
        var answered = 0
        /// `answered` at the last batch.
        var committedUpTo = 0
        var flushed = false
        /// Posts without a usable id since the last batch, posts the filter kept out and let
        /// through since then, and batches handed on so far.
        var skipped = 0
        var filtered = 0
        var kept = 0
        var batches = 0
    }

    /// The warning for a feed that has never delivered an entry and whose first index is not
    /// there (404): most likely not an indexed feed at all (`--kind indexed` on a Graph feed
    /// would otherwise sync "nothing new" forever, in silence).
    private var neverFound: SyncStep? {
        guard record.total == 0, record.nextIndex == 1 else { return nil }
        return .warning(
            "\(Redaction.maskingSecrets(in: url(1))) answered HTTP 404 and \(feed.name) has never delivered "
                + "an entry; if it is not an indexed feed, add it again without --kind (feeds add \(feed.name) URL "
                + "--replace) to have its kind found out")
    }

    package func next() -> Observable<SyncStep> {
        next(index: record.nextIndex, number: 1, counts: LastSyncCounts())
    }

    /// What `next` has met so far, for the feed's counts of its last sync.
    private struct LastSyncCounts {
        var skipped = 0, filtered = 0, kept = 0
    }

    private func next(index: Int, number: Int, counts: LastSyncCounts) -> Observable<SyncStep> {
        let start = record.nextIndex
        return .concat([
            .just(.requesting(url: url(index), number: index)),
            fetcher.get(url(index), feed: feed, acceptsNotFound: true).flatMap(.concat) {
                response -> Observable<SyncStep> in
                let fetchedAt = now()
                if response.status == 404 {
                    let warning: Observable<SyncStep> =
                        (index == start ? neverFound.map { .just($0) } : nil) ?? .empty()
                    let commit = FetchCommit(
                        fetchedAt: fetchedAt, nextIndex: index > start ? index : nil, skipped: .set(counts.skipped),
                        filtered: .set(counts.filtered), kept: .set(counts.kept))
                    return .concat([warning, .just(.batch(FetchedBatch(entries: [], complete: commit)))])
                }
                let (item, skip) = try IndexedFeed.item(from: response, index: index, passing: filter)
                let entry = item.map { $0.entry(feed: feed.name, fetchedAt: Timestamp.format(fetchedAt), read: true) }
                var soFar = counts
                if skip != nil { soFar.skipped += 1 }
                if item != nil { soFar.kept += 1 } else if skip == nil { soFar.filtered += 1 }
                let warning: Observable<SyncStep> = skip.map { .just(.warning($0.message)) } ?? .empty()
                // The last index there can be is the end of the feed: nothing follows `Int.max`.
                let (following, atTheEnd) = index.addingReportingOverflow(1)
                let commit = FetchCommit(
                    fetchedAt: fetchedAt, nextIndex: atTheEnd ? index : following, skipped: .set(soFar.skipped),
                    filtered: .set(soFar.filtered), kept: .set(soFar.kept))
                if let entry, try !unstored([entry]).isEmpty {
                    return .concat([warning, .just(.batch(FetchedBatch(entries: [entry], complete: commit)))])
                }
                guard number < maxRequests, !atTheEnd else {
                    return .concat([warning, .just(.batch(FetchedBatch(entries: [], complete: commit)))])
                }
                return .concat([warning, next(index: following, number: number + 1, counts: soFar)])
            },
        ])
    }

    package init(
        fetcher: any FeedFetching, record: FeedRecord, maxRequests: Int, filter: ItemFilter?,
        now: @escaping @Sendable () -> Date, unstored: @escaping @Sendable ([Entry]) throws -> [Entry]
    ) {
        self.fetcher = fetcher
        self.record = record
        self.maxRequests = maxRequests
        self.filter = filter
        self.now = now
        self.unstored = unstored
    }
}
