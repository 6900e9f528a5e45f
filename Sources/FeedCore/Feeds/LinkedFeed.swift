import FeedHTTP
import FeedModel
import FoundationEssentials
import Glibc

/// The `linked` kind: a JSON array per page, chained by `Link: <…>; rel="next"` (GitHub,
/// Mastodon, json-server). Items are any objects with an `id`.
package struct LinkedFeed: PageFormat {
    package init() {}

    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        let what = "linked page at \(url)"
        // The document is the item array; anything else is read only for `FeedShape`'s hints.
        let document = try FeedDocument.parsePage(response, items: .topLevel, rest: FeedShape.projection, what: what)
        guard let spans = document.items else {
            throw FeedDocument.wrongShape(document.value, body: response.body, expected: "a JSON array of items", kind: .linked, what: what)
        }
        let read = PageItems.reading(spans, page: url, projection: Self.itemProjection, reader: Self.item)
        return FeedPage(items: read.items, next: LinkHeader.next(in: response.headers, base: url), skipped: read.skipped)
    }

    /// The parts of an item the kind reads: its id and the default fields.
    package static let itemProjection = DefaultFields.projection

    package static func item(_ item: JSON, source: RawJSON) -> FeedItem? {
        guard let id = item["id"]?.id else { return nil }
        var fields = DefaultFields.fields(of: item, source: source)
        fields.id = id
        return fields
    }
}
