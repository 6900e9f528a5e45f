/// A Graph-API style page: `{"data": […], "paging": {"cursors": {"before", "after"}, "next",
/// "previous"}}`, newest first. `limit` is only a maximum: a page may hold fewer items, or none,
/// and still have `next`; the end is the absence of `next`.
struct GraphPage: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        struct Author: Decodable, Sendable {
            var name: String?
            var id: FlexibleID?
        }
        var id: FlexibleID?
        /// `2026-11-01T10:00:00+0000` (the Graph spelling) or RFC 3339.
        var createdTime: String?
        var message: String?
        var story: String?
        var from: Author?

        enum CodingKeys: String, CodingKey {
            case id, message, story, from
            case createdTime = "created_time"
        }
    }

    struct Paging: Decodable, Sendable {
        struct Cursors: Decodable, Sendable {
            var before: String?
            var after: String?
        }
        var cursors: Cursors?
        var next: String?
        var previous: String?
    }

    var data: [Item]
    var paging: Paging?

    /// `title` ← `story`; `text` ← `message`, else `story`; `author` ← `from.name`; `published` ←
    /// `created_time`.
    static func feedItem(_ item: Item, source: RawJSON) -> FeedItem? {
        guard let id = item.id?.value else { return nil }
        return FeedItem(
            id: id, title: item.story, text: item.message ?? item.story, author: item.from?.name,
            published: Timestamp.normalize(item.createdTime), source: source)
    }
}
