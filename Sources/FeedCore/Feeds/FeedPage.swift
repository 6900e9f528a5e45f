import FeedHTTP
import FeedJQ
import FeedModel
import FoundationEssentials

/// One page of a paged feed, as its kind reads it.
package struct FeedPage: Sendable {
    /// The page's items in the server's order (newest first), without items lacking an id.
    package var items: PageItems
    /// The next page's absolute URL, if the server gave one.
    package var next: String?
    /// Items without a usable id, with why.
    package var skipped = SkippedItems()
    /// Items the feed's `--filter` kept out of `items`.
    package var filtered = 0
    /// The feed's own title, when the page names one (a JSON Feed's `title`).
    package var title: String?
}

/// How one kind reads a page from a response. The walker is shared; only this differs.
package protocol PageFormat: Sendable {
    func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage
    /// The page that `items`, the JSON texts of a stream's items (each one object), make
    /// together, as if a page at `url` held them in an array in this order.
    func page(ofItems items: [[UInt8]], url: String) throws(FeedFailure) -> FeedPage
    /// Whether reading a page waits for a jq worker (up to `--timeout`): the walker then reads
    /// it off the run's serial work queue, so no other feed waits behind it.
    var waitsForJQ: Bool { get }
}

extension PageFormat {
    package var waitsForJQ: Bool { false }

    /// The items read as the body of a page: one JSON array of them.
    package func page(ofItems items: [[UInt8]], url: String) throws(FeedFailure) -> FeedPage {
        var body: [UInt8] = [UInt8(ascii: "[")]
        for (index, item) in items.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += item
        }
        body.append(UInt8(ascii: "]"))
        return try page(from: HTTPResponse(status: 200, body: Data(body), effectiveURL: url))
    }
}

extension ExpressionFeed {
    package var waitsForJQ: Bool { true }
}

extension FilteredPages {
    package var waitsForJQ: Bool { true }
}

extension FeedRegistration {
    /// How this feed's pages are read, its filter included; nil for `indexed`, which is not
    /// paged. `jq` bounds the feed's jq expressions (time and memory).
    package func pageFormat(jq limits: JQ.Limits) -> (any PageFormat)? {
        let format: any PageFormat
        switch kind {
        case .indexed: return nil
        case .graph: format = GraphFeed()
        case .jsonfeed: format = JSONFeedKind()
        case .linked: format = LinkedFeed()
        case .jetstream: format = JetstreamFeed()
        case .nostr: format = NostrFeed()
        case _ where kind.isStream && !effectiveExpressions.hasMapping:
            // A stream's items read by `linked`'s rules unless field expressions are given.
            format = LinkedFeed()
        case .json, .reddit, .bluesky, .discourse, .hn, .lemmy, .stackexchange, .sse, .ndjson, .mastodon, .wikimedia:
            var expressionFeed = ExpressionFeed(feedURL: url, expressions: effectiveExpressions, limits: limits)
            expressionFeed.preset = kind.preset.map { (kind.rawValue, $0) }
            format = expressionFeed
        }
        guard let filter = itemFilter(jq: limits) else { return format }
        return FilteredPages(format: format, filter: filter)
    }

    /// The feed's `--filter`, when it has one.
    package func itemFilter(jq limits: JQ.Limits) -> ItemFilter? {
        expressions.filter.map { ItemFilter(expression: $0, limits: limits) }
    }
}
