import FeedBase
import FeedModel
import FeedReactive
import FoundationEssentials

/// Fetching a paged feed (`graph`, `jsonfeed`, `linked`): a walk from the feed's URL for what is
/// new, then, with the page budget left, a backfill walk from where an earlier walk was cut.
///
/// The top walk stops at the first page holding a stored entry; its new entries are delivered and
/// committed in batches of at most `batchSize`, oldest first, the last with the first page's
/// validators. When `--max-pages` cut it, the cut becomes the backfill cursor (`resume_url`)
/// and the budget is spent.
///
/// The backfill walk follows the cursor through pages whatever they hold: stored entries are
/// skipped, not a reason to stop, because items added at the top shift older ones onto later
/// pages (page-numbered feeds) and the cursor's page may then hold entries already stored. It
/// ends when no `next` remains (the cursor is cleared) or the budget runs out (the cursor moves
/// on). So, with items added between bounded runs, repeated runs still store every item once.
///
/// Delivered in part, a top batch commits its oldest entries (and the cut) but not the
/// validators, so the next run walks again and stops at them; a backfill batch commits its
/// oldest entries and keeps the cursor, so the next backfill walk sees the rest again.
package struct PagedSync: Sendable {
    package let fetcher: any FeedFetching
    package let format: any PageFormat
    package let record: FeedRecord
    package let maxPages: Int
    package let now: @Sendable () -> Date
    /// Which of these ids the store holds.
    package let knownIDs: @Sendable ([String]) throws -> Set<String>

    /// The most entries one batch of the top walk delivers and commits: a disk that fills up
    /// mid-run keeps the batches that fit, and a run that stops prints at most one batch again.
    package static let batchSize = 100

    package func sync() -> Observable<SyncStep> {
        let record = self.record
        let now = self.now
        return walk(
            from: record.registration.url, validators: record.validators, mode: .untilStored, maxPages: maxPages,
            pageOffset: 0
        ) { outcome in
            let fetchedAt = now()
            let cut: FetchCommit.Cursor = outcome.unfollowedNext.map { .set($0) } ?? .keep
            let top = Self.batches(
                outcome.entries(feed: record.name, fetchedAt: fetchedAt), fetchedAt: fetchedAt,
                validators: outcome.validators, cut: cut,
                counts: (outcome.skippedCount, outcome.filteredCount, outcome.keptCount))
            let budget = maxPages - outcome.pagesRequested
            var steps: [SyncStep] = [top.count == 1 ? .batch(top.batch(0)) : .batches(top)]
            // A feed that names itself in every document (a JSON Feed) is named by it, also when
            // its kind was given rather than found out (detection reads the title too).
            if let title = FeedSettings.sourceTitle(outcome.pages.first?.title), title != record.title {
                steps.insert(.sourceTitle(title), at: 0)
            }
            guard outcome.unfollowedNext == nil, let resume = record.resumeURL, budget > 0 else { return .from(steps) }
            return .concat([.from(steps), backfill(from: resume, budget: budget, pageOffset: outcome.pagesRequested)])
        }
    }

    /// The top walk's new entries (oldest first) as batches of at most `batchSize`, oldest
    /// first, each made when it is delivered. The first commits the walk's cut (so the backfill
    /// cursor is kept however far the run gets) and starts the counts of skipped, filtered and
    /// kept items; only the
    /// last commits the validators, so a run that stops early walks again next time. Always at
    /// least one batch: a walk that found nothing new still records its fetch.
    package static func batches(
        _ entries: NewEntries, fetchedAt: Date, validators: Validators?, cut: FetchCommit.Cursor,
        counts: (skipped: Int, filtered: Int, kept: Int)
    ) -> FetchedBatches {
        let count = max((entries.count + batchSize - 1) / batchSize, 1)
        return FetchedBatches(count: count) { number in
            let first = number == 0
            let last = number == count - 1
            let resume: FetchCommit.Cursor = first ? cut : .keep
            func change(_ value: Int) -> FetchCommit.SkipCount { first ? .set(value) : .add(0) }
            let (skips, filtered, kept) = (change(counts.skipped), change(counts.filtered), change(counts.kept))
            let start = number * batchSize
            return FetchedBatch(
                entries: entries.entries(start..<min(start + batchSize, entries.count)),
                complete: FetchCommit(
                    fetchedAt: fetchedAt, validators: last ? validators : nil, resume: resume, skipped: skips,
                    filtered: filtered, kept: kept),
                partial: { _ in
                    FetchCommit(fetchedAt: fetchedAt, resume: resume, skipped: skips, filtered: filtered, kept: kept)
                })
        }
    }

    private func backfill(from url: String, budget: Int, pageOffset: Int) -> Observable<SyncStep> {
        let record = self.record
        let now = self.now
        return walk(from: url, validators: nil, mode: .throughStored, maxPages: budget, pageOffset: pageOffset) {
            outcome in
            let fetchedAt = now()
            let resume: FetchCommit.Cursor = outcome.unfollowedNext.map { .set($0) } ?? .clear
            let entries = outcome.entries(feed: record.name, fetchedAt: fetchedAt)
            // One batch: backfilled entries are numbered below every stored one, a batch at a
            // time, so batches of them would come out of order.
            return .just(
                .batch(
                    FetchedBatch(
                        entries: entries.entries(0..<entries.count),
                        complete: FetchCommit(
                            fetchedAt: fetchedAt, resume: resume, isBackfill: true, skipped: .add(outcome.skippedCount),
                            filtered: .add(outcome.filteredCount), kept: .add(outcome.keptCount)),
                        partial: { _ in
                            FetchCommit(
                                fetchedAt: fetchedAt, resume: .keep, isBackfill: true,
                                skipped: .add(outcome.skippedCount),
                                filtered: .add(outcome.filteredCount), kept: .add(outcome.keptCount))
                        })))
        }
    }

    /// Runs one walk, reporting each request, then hands what it found to `finish`.
    private func walk(
        from url: String, validators: Validators?, mode: PagingWalker.Mode, maxPages: Int, pageOffset: Int,
        finish: @escaping @Sendable (WalkOutcome) throws -> Observable<SyncStep>
    ) -> Observable<SyncStep> {
        let walker = PagingWalker(
            fetcher: fetcher, format: format, feed: record.registration, maxPages: maxPages,
            mode: mode, knownIDs: knownIDs)
        return .deferred {
            let outcome = Locked(WalkOutcome())
            return .concat([
                walker.walk(from: url, validators: validators).compactMap { step -> SyncStep? in
                    outcome.withLock { $0.add(step) }
                    guard case .requesting(let url, let number) = step else { return nil }
                    return .requesting(url: url, number: pageOffset + number)
                },
                .deferred {
                    let walked = outcome.withLock { $0 }
                    return .concat([.from(walked.warnings), try finish(walked)])
                },
            ])
        }
    }

    package init(
        fetcher: any FeedFetching, format: any PageFormat, record: FeedRecord, maxPages: Int,
        now: @escaping @Sendable () -> Date, knownIDs: @escaping @Sendable ([String]) throws -> Set<String>
    ) {
        self.fetcher = fetcher
        self.format = format
        self.record = record
        self.maxPages = maxPages
        self.now = now
        self.knownIDs = knownIDs
    }
}

/// What one walk found, gathered while it runs.
package struct WalkOutcome: Sendable {
    package var pages: [PagingWalker.WalkedPage] = []
    package var pagesRequested = 0
    package var notModified = false
    /// The next-page link that answered 404, 410 or 414, ending the walk.
    package var deadLink: (url: String, status: Int)?

    package mutating func add(_ step: PagingWalker.Step) {
        switch step {
        case .requesting(_, let number): pagesRequested = number
        case .page(let page): pages.append(page)
        case .notModified: notModified = true
        case .deadLink(let url, let status): deadLink = (url, status)
        }
    }

    /// How many items the walk's pages held without a usable id.
    package var skippedCount: Int { pages.reduce(0) { $0 + $1.skipped.count } }
    /// How many items the walk's pages' filter kept out, and let through.
    package var filteredCount: Int { pages.reduce(0) { $0 + $1.filtered } }
    package var keptCount: Int { pages.reduce(0) { $0 + $1.kept } }

    /// The walk's warnings: each skipped item (as many as are named), and a dead or unusable
    /// link that ended it.
    package var warnings: [SyncStep] {
        pages.flatMap { $0.skipped.messages(page: $0.url) }.map { .warning($0) }
            + pages.compactMap(\.unusableNext).map {
                .warning($0 + "; the walk ended there and kept what it had fetched")
            }
            + (deadLink.map { link in
                [
                    .warning(
                        "the next page \(Redaction.maskingSecrets(in: link.url)) answered HTTP \(link.status); "
                            + "the walk ended there and kept what it had fetched")
                ]
            } ?? [])
    }

    /// The first page's validators, to commit once everything new is delivered.
    package var validators: Validators? { notModified ? nil : pages.first?.validators }

    /// Where the walk would have gone had the page budget not stopped it.
    package var unfollowedNext: String? { pages.last?.unfollowedNext }

    /// The new entries, oldest first (walks see newest first).
    package func entries(feed: String, fetchedAt: Date) -> NewEntries {
        NewEntries(pages: pages.map(\.fresh), feed: feed, fetchedAt: Timestamp.format(fetchedAt))
    }
}
