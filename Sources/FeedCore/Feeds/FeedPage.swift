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

extension PageFormat {
    /// Slices the raw items out of `body` (so `source` stays byte-exact) and pairs them with
    /// their decoded form; a count mismatch means the document was not what it seemed.
    func pairRaw<Item>(
        _ decoded: [Item], in body: [UInt8], key: String?, url: String
    ) throws(FeedFailure) -> [(Item, RawJSON)] {
        guard let raws = RawJSON.arrayElements(in: body, key: key), raws.count == decoded.count else {
            throw .badData("cannot read the items of \(url)")
        }
        return Array(zip(decoded, raws))
    }
}
