/// The `graph` kind: Graph-API style pages chained by `paging.next`.
struct GraphFeed: PageFormat {
    func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        let page = try JSONDecoding.decode(GraphPage.self, from: response.body, what: "graph page at \(url)")
        let items = try pairRaw(page.data, in: Array(response.body), key: "data", url: url)
            .compactMap { GraphPage.feedItem($0, source: $1) }
        return FeedPage(items: items, next: page.paging?.next.flatMap { LinkHeader.resolve($0, against: url) })
    }
}
