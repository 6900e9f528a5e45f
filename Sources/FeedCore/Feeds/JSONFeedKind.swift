/// The `jsonfeed` kind: JSON Feed 1.0 / 1.1 documents chained by `next_url`.
struct JSONFeedKind: PageFormat {
    func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        let document = try JSONDecoding.decode(JSONFeedDocument.self, from: response.body, what: "JSON Feed at \(url)")
        guard document.isSupportedVersion else {
            throw .badData("JSON Feed at \(url): unsupported version \(document.version)")
        }
        let items = try pairRaw(document.items, in: Array(response.body), key: "items", url: url)
            .compactMap { document.feedItem($0, source: $1) }
        return FeedPage(items: items, next: document.nextURL.flatMap { LinkHeader.resolve($0, against: url) })
    }
}
