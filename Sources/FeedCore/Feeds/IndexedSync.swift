import Foundation

/// Fetching an `indexed` feed: `GET {url}/{n}` for the next indices, stopping at the first 404.
///
/// `sync` requests windows of indices, four in flight at a time over the client's reused
/// connections. The first window is 4 indices, so a polling run at the end of the feed costs 4
/// requests; each full window doubles the next (up to 64), so a long backlog pays few commits.
/// Each window becomes one batch whose cursor moves past the indices answered; delivered in
/// part, the cursor stops at the first undelivered post.
///
/// `next` requests one index at a time until it finds a post not stored yet (the entry comes
/// marked read) or a 404. Posts without a usable id, or already stored under their id, are
/// skipped: the cursor moves by the index requested, never by a post's own id.
struct IndexedSync: Sendable {
    let fetcher: any FeedFetching
    let record: FeedRecord
    let maxRequests: Int
    let now: @Sendable () -> Date
    /// The entries whose ids the store does not hold yet.
    let unstored: @Sendable ([Entry]) throws -> [Entry]

    private var feed: FeedRegistration { record.registration }

    private func url(_ index: Int) -> String { IndexedFeed.url(base: feed.url, index: index) }

    func sync() -> Observable<SyncStep> {
        window(from: record.nextIndex, size: 4, requestsLeft: maxRequests, isFirst: true)
    }

    private func window(from start: Int, size: Int, requestsLeft: Int, isFirst: Bool) -> Observable<SyncStep> {
        let count = min(size, requestsLeft)
        guard count > 0 else { return .empty() }
        let fetcher = self.fetcher, feed = self.feed
        let responses = Observable.from(Array(start..<(start + count)))
            .flatMap(.merge(maxConcurrent: 4)) { index in
                fetcher.get(IndexedFeed.url(base: feed.url, index: index), feed: feed, acceptsNotFound: true)
                    .map { (index, $0) }
            }
            .toArray()
        return .concat([
            .just(.requesting(url: url(start), number: maxRequests - requestsLeft + 1)),
            responses.flatMap(.concat) { responses -> Observable<SyncStep> in
                var found = 0
                var entries: [Entry] = []
                var indices: [Int] = []
                let fetchedAt = now()
                for (index, response) in responses.sorted(by: { $0.0 < $1.0 }) {
                    guard response.status != 404 else { break }
                    found += 1
                    if let item = try IndexedFeed.item(from: response) {
                        entries.append(item.entry(feed: feed.name, fetchedAt: Timestamp.format(fetchedAt)))
                        indices.append(index)
                    }
                }
                guard found > 0 || isFirst else { return .empty() }
                let new = try unstored(entries)
                let newIndices = new.map { entry in indices[entries.firstIndex { $0.id == entry.id } ?? 0] }
                let batch = FetchedBatch(
                    entries: new, complete: FetchCommit(fetchedAt: fetchedAt, nextIndex: found > 0 ? start + found : nil),
                    partial: { delivered in FetchCommit(fetchedAt: fetchedAt, nextIndex: newIndices[delivered]) })
                guard found == count else { return .just(.batch(batch)) }
                return .concat([
                    .just(.batch(batch)),
                    window(from: start + count, size: min(size * 2, 64), requestsLeft: requestsLeft - count, isFirst: false),
                ])
            },
        ])
    }

    func next() -> Observable<SyncStep> {
        next(index: record.nextIndex, number: 1)
    }

    private func next(index: Int, number: Int) -> Observable<SyncStep> {
        let start = record.nextIndex
        return .concat([
            .just(.requesting(url: url(index), number: number)),
            fetcher.get(url(index), feed: feed, acceptsNotFound: true).flatMap(.concat) { response -> Observable<SyncStep> in
                let fetchedAt = now()
                if response.status == 404 {
                    let commit = FetchCommit(fetchedAt: fetchedAt, nextIndex: index > start ? index : nil)
                    return .just(.batch(FetchedBatch(entries: [], complete: commit)))
                }
                let entry = try IndexedFeed.item(from: response).map { $0.entry(feed: feed.name, fetchedAt: Timestamp.format(fetchedAt), read: true) }
                let commit = FetchCommit(fetchedAt: fetchedAt, nextIndex: index + 1)
                if let entry, try !unstored([entry]).isEmpty {
                    return .just(.batch(FetchedBatch(entries: [entry], complete: commit)))
                }
                guard number < maxRequests else { return .just(.batch(FetchedBatch(entries: [], complete: commit))) }
                return next(index: index + 1, number: number + 1)
            },
        ])
    }
}
