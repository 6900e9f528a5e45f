import FeedHTTP
import FeedModel
import FoundationEssentials
import Glibc

/// The `graph` kind: Graph-API style pages, `{"data": […], "paging": {"cursors": {"before",
/// "after"}, "next", "previous"}}`, newest first, chained by `paging.next`. `limit` is only a
/// maximum: a page may hold fewer items, or none, and still have `next`; the end is the absence
/// of `next`.
package struct GraphFeed: PageFormat {
    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        let what = "graph page at \(url)"
        let document = try FeedDocument.parsePage(
            response, items: .member("data"), rest: Self.pageProjection, what: what)
        guard let spans = document.items else {
            throw FeedDocument.wrongShape(
                document.value, body: response.body, expected: "a Graph page object with a `data` array",
                kind: .graph, what: what, arrayMember: "data")
        }
        let read = PageItems.reading(spans, page: url, projection: Self.itemProjection, reader: Self.item)
        return FeedPage(
            items: read.items,
            next: document.value[["paging", "next"]]?.string.flatMap { URLReference.resolve($0, against: url) },
            skipped: read.skipped)
    }

    /// `title` ← `story`; `text` ← `message`, else `story`; `author` ← `from.name`; `published` ←
    /// `created_time` (`2026-11-01T10:00:00+0000`, the Graph spelling, or RFC 3339).
    /// The parts of a page besides its items that `page` reads, and those `FeedShape` reads.
    package static let pageProjection = JSONProjection.parts(["paging": .members(["next"])]).union(FeedShape.projection)

    /// The parts of an item `item` reads.
    package static let itemProjection = JSONProjection.members(["id", "story", "message", "created_time"])
        .union(.parts(["from": .members(["name"])]))

    package static func item(_ item: JSON, source: RawJSON) -> FeedItem? {
        guard let id = item["id"]?.id else { return nil }
        let story = item["story"]?.string
        return FeedItem(
            id: id, title: story, text: item["message"]?.string ?? story, author: item[["from", "name"]]?.string,
            published: Timestamp.normalize(item["created_time"]?.string), source: source)
    }
}
