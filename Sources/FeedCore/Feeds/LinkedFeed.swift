/// The `linked` kind: a JSON array per page, chained by `Link: <…>; rel="next"` (GitHub,
/// Mastodon, json-server).
struct LinkedFeed: PageFormat {
    func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        let values = try JSONDecoding.decode([JSONValue].self, from: response.body, what: "linked page at \(url)")
        let items = try pairRaw(values, in: Array(response.body), key: nil, url: url)
            .compactMap { LinkedItem.feedItem($0, source: $1) }
        return FeedPage(items: items, next: LinkHeader.next(in: response.headers, base: url))
    }
}
