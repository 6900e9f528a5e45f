/// One page of a paged feed, as its kind reads it.
struct FeedPage: Sendable {
    /// The page's items in the server's order (newest first), without items lacking an id.
    var items: PageItems
    /// The next page's absolute URL, if the server gave one.
    var next: String?
    /// Items without a usable id, with why.
    var skipped = SkippedItems()
}

/// How one kind reads a page from a response. The walker is shared; only this differs.
protocol PageFormat: Sendable {
    func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage
}

extension FeedRegistration {
    /// How this feed's pages are read, its filter included; nil for `indexed`, which is not
    /// paged. `timeout` bounds the feed's jq expressions.
    func pageFormat(timeout: Duration) -> (any PageFormat)? {
        let format: any PageFormat
        switch kind {
        case .indexed: return nil
        case .graph: format = GraphFeed()
        case .jsonfeed: format = JSONFeedKind()
        case .linked: format = LinkedFeed()
        case .json, .reddit, .bluesky, .discourse, .hn, .lemmy, .stackexchange:
            format = JSONAPIFeed(feedURL: url, expressions: effectiveExpressions, timeout: timeout)
        }
        guard let filter = itemFilter(timeout: timeout) else { return format }
        return FilteredPages(format: format, filter: filter)
    }

    /// The feed's `--filter`, when it has one.
    func itemFilter(timeout: Duration) -> ItemFilter? {
        expressions.filter.map { ItemFilter(expression: $0, timeout: timeout) }
    }
}
