/// A JSON Feed 1.0 or 1.1 document (jsonfeed.org). Unknown keys and `_` extensions are ignored.
struct JSONFeedDocument: Decodable, Sendable {
    struct Author: Decodable, Sendable {
        var name: String?
        var url: String?
    }

    struct Item: Decodable, Sendable {
        var id: FlexibleID?
        var url: String?
        var externalURL: String?
        var title: String?
        var contentText: String?
        var contentHTML: String?
        var summary: String?
        var datePublished: String?
        /// 1.0's single author.
        var author: Author?
        /// 1.1's list, which replaces `author`.
        var authors: [Author]?

        enum CodingKeys: String, CodingKey {
            case id, url, title, summary, author, authors
            case externalURL = "external_url"
            case contentText = "content_text"
            case contentHTML = "content_html"
            case datePublished = "date_published"
        }
    }

    var version: String
    var title: String
    var items: [Item]
    var nextURL: String?
    var author: Author?
    var authors: [Author]?

    enum CodingKeys: String, CodingKey {
        case version, title, items, author, authors
        case nextURL = "next_url"
    }

    /// 1.0 and 1.1 (and their `http:` spelling, seen in the wild).
    var isSupportedVersion: Bool {
        ["https://jsonfeed.org/version/1", "https://jsonfeed.org/version/1.1",
         "http://jsonfeed.org/version/1", "http://jsonfeed.org/version/1.1"].contains(version)
    }

    /// The feed-level author name items inherit, as the spec says.
    var authorName: String? { authors?.first?.name ?? author?.name }

    /// `text` ← `content_text`, else `content_html`; `author` ← the item's first author's name,
    /// else the feed's; `published` ← `date_published`; `title`, `url` as named. Items without a
    /// non-blank `id` are skipped.
    func feedItem(_ item: Item, source: RawJSON) -> FeedItem? {
        guard let id = item.id?.value else { return nil }
        return FeedItem(
            id: id, title: item.title, text: item.contentText ?? item.contentHTML,
            author: item.authors?.first?.name ?? item.author?.name ?? authorName,
            url: item.url, published: Timestamp.normalize(item.datePublished), source: source)
    }
}
