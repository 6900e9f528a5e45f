import FeedHTTP
import FeedModel
import FoundationEssentials
import Glibc

/// The `jsonfeed` kind: JSON Feed 1.0 / 1.1 documents (jsonfeed.org) chained by `next_url`.
/// Unknown members and `_` extensions are ignored; a missing `title` is forgiven.
package struct JSONFeedKind: PageFormat {
    package static let versions: Set<String> = [
        "https://jsonfeed.org/version/1", "https://jsonfeed.org/version/1.1",
        "http://jsonfeed.org/version/1", "http://jsonfeed.org/version/1.1",
    ]

    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        let what = "JSON Feed at \(url)"
        let document = try FeedDocument.parsePage(
            response, items: .member("items"), rest: Self.pageProjection, what: what)
        guard let spans = document.items, let version = document.value["version"]?.string else {
            throw FeedDocument.wrongShape(
                document.value, body: response.body, expected: "a JSON Feed object with `version` and `items`",
                kind: .jsonfeed, what: what, arrayMember: "items")
        }
        guard Self.versions.contains(version) else {
            throw .badData("\(what): unsupported version \(Excerpt.of(version, limit: 60))")
        }
        let feedAuthor = Self.authorName(of: document.value)
        let read = PageItems.reading(spans, page: url, projection: Self.itemProjection) {
            Self.item($0, source: $1, feedAuthor: feedAuthor)
        }
        return FeedPage(
            items: read.items,
            next: document.value["next_url"]?.string.flatMap { URLReference.resolve($0, against: url) },
            skipped: read.skipped, title: document.value["title"]?.string)
    }

    /// The parts of a feed or an item `authorName` reads.
    package static let authorProjection = JSONProjection.parts([
        "authors": .parts([:], first: .members(["name"])),
        "author": .members(["name"]),
    ])

    /// The parts of a document besides its items that `page` reads, and those `FeedShape` reads.
    package static let pageProjection = JSONProjection.members(["version", "next_url", "title"]).union(
        authorProjection
    )
    .union(FeedShape.projection)

    /// The parts of an item `item` reads.
    package static let itemProjection = JSONProjection.members([
        "id", "title", "content_text", "content_html", "url", "date_published",
    ])
    .union(authorProjection)

    /// The first name of 1.1's `authors`, else 1.0's `author`.
    package static func authorName(of value: JSON) -> String? {
        value["authors"]?.array?.first?["name"]?.string ?? value[["author", "name"]]?.string
    }

    /// `text` ← `content_text`, else `content_html`; `author` ← the item's first author's name,
    /// else the feed's (as the spec says); `published` ← `date_published`; `title`, `url` as
    /// named. Items without a non-blank `id` are skipped.
    package static func item(_ item: JSON, source: RawJSON, feedAuthor: String?) -> FeedItem? {
        guard let id = item["id"]?.id else { return nil }
        return FeedItem(
            id: id, title: item["title"]?.string, text: item["content_text"]?.string ?? item["content_html"]?.string,
            author: authorName(of: item) ?? feedAuthor, url: item["url"]?.string,
            published: Timestamp.normalize(item["date_published"]?.string), source: source)
    }
}
