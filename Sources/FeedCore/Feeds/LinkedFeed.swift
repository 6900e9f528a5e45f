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
            throw FeedDocument.wrongShape(
                document.value, body: response.body, expected: "a JSON array of items", kind: .linked, what: what)
        }
        let read = PageItems.reading(spans, page: url, projection: Self.itemProjection, reader: Self.item)
        return FeedPage(
            items: read.items, next: LinkHeader.next(in: response.headers, base: url), skipped: read.skipped)
    }

    /// Each item read once, on its own: a stream's items come apart, and a page of them would
    /// be parsed twice over (its array, then each item again to deliver it).
    package func page(ofItems items: [[UInt8]], url: String) throws(FeedFailure) -> FeedPage {
        var read: [FeedItem] = []
        read.reserveCapacity(items.count)
        var skipped = SkippedItems()
        for (index, bytes) in items.enumerated() {
            let document: JSONParser.Document
            do {
                document = try JSONParser.parse(bytes, Self.itemProjection)
            } catch {
                throw .badData("an item of \(Redaction.maskingSecrets(in: url)) is not JSON: \(error)")
            }
            if let item = Self.item(document.value, source: document.source) {
                read.append(item)
            } else {
                skipped.add(SkippedItem(position: index + 1, page: url, why: SkippedItem.why(id: document.value["id"])))
            }
        }
        return FeedPage(items: PageItems(read), skipped: skipped)
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
