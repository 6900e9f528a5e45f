/// One page of a paged feed, as its kind reads it.
struct FeedPage: Sendable {
    /// The page's items in the server's order (newest first), without items lacking an id.
    var items: [FeedItem]
    /// The next page's absolute URL, if the server gave one.
    var next: String?
}

/// How one kind reads a page from a response. The walker is shared; only this differs.
protocol PageFormat: Sendable {
    func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage
}

extension FeedKind {
    /// How pages of this kind are read; nil for `indexed`, which is not paged.
    var pageFormat: (any PageFormat)? {
        switch self {
        case .indexed: nil
        case .graph: GraphFeed()
        case .jsonfeed: JSONFeedKind()
        case .linked: LinkedFeed()
        }
    }
}
