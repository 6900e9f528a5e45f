import FeedBase
import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials

/// A stream's catch-up (`--catch-up`): the REST pages a connection missed, read after it opens.
extension StreamSync {
    /// The catch-up after a connection: its pages' new entries, oldest first, as batches. A
    /// catch-up that fails is said (a warning) and the stream goes on: it is a courtesy.
    func catchingUp(_ catchUp: StreamCatchUp) -> Observable<SyncStep> {
        let url: Observable<String> = .deferred {
            switch catchUp.paging {
            case .once: return .just(catchUp.url)
            case .minID:
                // Nothing stored yet: nothing to catch up to (the stream starts the feed).
                guard let newest = try newestStoredID() else { return .empty() }
                return .just(
                    URLQuery.setting("min_id", to: newest, in: URLQuery.setting("limit", to: "40", in: catchUp.url)))
            }
        }
        let shown = Redaction.maskingSecrets(in: catchUp.url)
        return url.flatMap(.concat) { url in catchUpPage(url, number: 1, catchUp) }
            .catch { error in
                .just(
                    .warning(
                        "catch-up from \(shown) failed: \(FeedFailure(fetching: error).map { "\($0)" } ?? "\(error)")"))
            }
    }

    private func catchUpPage(_ url: String, number: Int, _ catchUp: StreamCatchUp) -> Observable<SyncStep> {
        fetcher.get(url, feed: record.registration).flatMap(.concat) { response -> Observable<SyncStep> in
            let read = { @Sendable () throws -> FeedPage in try catchUp.format.page(from: response) }
            let page = catchUp.format.waitsForJQ ? fetcher.blocking(read) : Observable.deferred { .just(try read()) }
            return page.flatMap(.concat) { page -> Observable<SyncStep> in
                let fetchedAt = now()
                let stamp = Timestamp.format(fetchedAt)
                let stored = try knownIDs(page.items.map(\.id))
                var seen = Set<String>()
                // A timeline answers newest first: delivered oldest first, as every sync.
                let entries = page.items.reversed().filter { !stored.contains($0.id) && seen.insert($0.id).inserted }
                    .map { $0.entry(feed: record.name, fetchedAt: stamp) }
                let step = SyncStep.batch(
                    FetchedBatch(
                        entries: entries,
                        complete: FetchCommit(
                            fetchedAt: fetchedAt, skipped: .add(page.skipped.count), filtered: .add(page.filtered),
                            kept: .add(page.items.count))))
                guard catchUp.paging == .minID, number < catchUp.maxPages, let newest = page.items.first?.id
                else { return .just(step) }
                // `--max-entries` counts what the catch-up delivers too (the delivery spends the
                // budget, before the next page is asked for): once it is spent, the rest is read
                // again from the newest stored entry next time.
                let next = URLQuery.setting("min_id", to: newest, in: url)
                return .concat([
                    .just(step),
                    .deferred { budget?.isSpent == true ? .empty() : catchUpPage(next, number: number + 1, catchUp) },
                ])
            }
        }
    }
}
