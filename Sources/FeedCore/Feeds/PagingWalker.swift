import FeedBase
import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials
import Glibc

/// Walks any paged kind, newest page first, for `sync`. One walker for all kinds; a
/// `PageFormat` reads each page.
///
/// The walk follows `next` and stops when no `next` remains, or at `maxPages` requests, or when
/// `next` points at a URL this walk already requested (a loop); in `.untilStored` mode also at
/// the first page that holds an entry already stored. An empty page that still has `next` is not
/// the end. The first request carries the feed's validators; a 304 ends the walk as "not
/// modified". Ids already seen earlier in the walk are dropped (items shift between pages while
/// a walk runs). A next-page link that answers 404 or 410 (the page is gone, or never was) ends
/// the walk like a last page: what was fetched is kept, and the step says so for a warning; so
/// do a link that answers 414 (too long), and one that is no usable http(s) URL (a bad port, a
/// space, another scheme), which is not requested at all. Any other failure of a later page
/// fails the walk as before. A page read by jq expressions is read off the run's work queue
/// (`FeedFetching.blocking`).
package struct PagingWalker: Sendable {
    package enum Mode: Sendable {
        /// Looking for what is new at the top: a page with a stored entry is where it ends.
        case untilStored
        /// Backfilling older pages: stored entries are skipped, the walk goes on.
        case throughStored
    }

    package indirect enum Step: Sendable {
        /// About to request page `number` (1-based).
        case requesting(url: String, number: Int)
        case page(WalkedPage)
        /// The first page answered 304.
        case notModified
        /// A next-page link answered 404, 410 or 414: the walk ended there, as at a last page.
        case deadLink(url: String, status: Int)
    }

    package struct WalkedPage: Sendable {
        /// Items not stored yet, in the server's order (newest first).
        var fresh: PageItems
        /// The first page's validators (nil for later pages).
        var validators: Validators?
        /// Where the walk would have gone had `maxPages` not stopped it.
        var unfollowedNext: String?
        /// The page's items that had no usable id.
        var skipped = SkippedItems()
        /// The page's items the filter kept out, and those it let through (stored or not).
        var filtered = 0
        var kept = 0
        /// The page's URL, for the warnings about it.
        var url = ""
        /// Why the page's next link was not followed (not a usable http(s) URL), for a warning.
        var unusableNext: String?
        /// The feed's own title, when the page names one.
        var title: String?
    }

    package let fetcher: any FeedFetching
    package let format: any PageFormat
    package let feed: FeedRegistration
    package let maxPages: Int
    package let mode: Mode
    /// Which of these ids the store holds.
    package let knownIDs: @Sendable ([String]) throws -> Set<String>

    package func walk(from url: String, validators: Validators?) -> Observable<Step> {
        // One set of the ids seen for the whole walk, shared by its pages' steps: a set passed
        // along by value was copied by every page that added to it, while earlier pages' steps
        // still held their copies (a 10-page walk of a million ids held ten growing sets).
        step(url: url, number: 1, requested: [url], seen: Locked([]), validators: validators)
    }

    private func step(
        url: String, number: Int, requested: Set<String>, seen: Locked<Set<String>>, validators: Validators?
    ) -> Observable<Step> {
        let fetched = fetcher.get(url, feed: feed, validators: validators)
        let page =
            number == 1
            ? fetched
            : fetched.catch { error in
                // 414: the link is too long for the server (a runaway cursor) — as dead as a 404.
                guard let status = (error as? HTTPStatusFailure)?.status, [404, 410, 414].contains(status) else {
                    throw error
                }
                return .just(HTTPResponse(status: status, effectiveURL: url))
            }
        return .concat([
            .just(.requesting(url: url, number: number)),
            page.flatMap(.concat) { response -> Observable<Step> in
                if [404, 410, 414].contains(response.status) {
                    return .just(.deadLink(url: url, status: response.status))
                }
                if response.status == 304 { return .just(.notModified) }
                let format = self.format
                let read: Observable<FeedPage> =
                    format.waitsForJQ
                    ? fetcher.blocking { try format.page(from: response) }
                    : .deferred { .just(try format.page(from: response)) }
                return read.flatMap(.concat) { page in
                    try walked(page, response: response, url: url, number: number, requested: requested, seen: seen)
                }
            },
        ])
    }

    /// The step for a page that was read, and the walk's next step when it goes on.
    private func walked(
        _ page: FeedPage, response: HTTPResponse, url: String, number: Int, requested: Set<String>,
        seen: Locked<Set<String>>
    ) throws -> Observable<Step> {
        // Taken out of its box while the store is asked (no lock held across it), and put back:
        // the set is never copied.
        var ids = seen.withLock { ids in
            defer { ids = [] }
            return ids
        }
        let found = Result { try freshItems(of: page.items, seen: &ids) }
        seen.withLock { [ids] in $0 = ids }
        let (fresh, anyStored) = try found.get()
        let pageValidators =
            number == 1
            ? Validators(etag: response.headers["ETag"], lastModified: response.headers["Last-Modified"])
            : nil
        var next = page.next.flatMap { requested.contains($0) ? nil : $0 }
        var unusable: String?
        if let link = next, let why = FeedRegistration.whyUnusableLink(link) {
            // The server's link, not the user's configuration: the walk ends there, as at a
            // last page, and what was fetched is kept.
            unusable =
                "the next page link of \(Redaction.maskingSecrets(in: url)) \(why): "
                + Excerpt.of(Redaction.maskingSecrets(in: link), limit: 80)
            next = nil
        }
        let reachedStored = mode == .untilStored && anyStored
        let goesOn = !reachedStored && next != nil && number < maxPages
        let walked = WalkedPage(
            fresh: fresh, validators: pageValidators,
            unfollowedNext: !reachedStored && number >= maxPages ? next : nil,
            skipped: page.skipped, filtered: page.filtered, kept: page.items.count,
            url: response.effectiveURL, unusableNext: unusable, title: page.title)
        guard goesOn, let next else { return .just(.page(walked)) }
        return .concat([
            .just(.page(walked)),
            step(url: next, number: number + 1, requested: requested.union([next]), seen: seen, validators: nil),
        ])
    }

    /// How many ids one store lookup asks about: a page's ids are never all held at once.
    package static let lookupSize = 1_000

    /// The items of a page that the store does not hold and this walk has not seen (they are
    /// added to `seen`), and whether the store holds any of the page's items. Each item's id is
    /// read once, `lookupSize` at a time.
    private func freshItems(of items: PageItems, seen: inout Set<String>) throws -> (PageItems, anyStored: Bool) {
        var fresh: [Int] = []
        var anyStored = false
        for start in stride(from: 0, to: items.count, by: Self.lookupSize) {
            let positions = start..<min(start + Self.lookupSize, items.count)
            let ids = positions.map { items[$0].id }
            let stored = try knownIDs(ids)
            anyStored = anyStored || !stored.isEmpty
            for (position, id) in zip(positions, ids) where !stored.contains(id) && seen.insert(id).inserted {
                fresh.append(position)
            }
        }
        return (items.keeping(fresh), anyStored)
    }
}
