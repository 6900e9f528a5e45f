import FeedHTTP
import FeedModel
import FoundationEssentials
import Glibc

/// The `linked` kind: a JSON array per page, chained by `Link: <…>; rel="next"` (GitHub,
/// Mastodon, json-server). Items are any objects with an `id`.
package struct LinkedFeed: PageFormat {
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

    /// Each field from the first name present, per the contract: `title` ← `title`; `text` ←
    /// `body`, `content`, `text`, `message`; `author` ← `author` (or its `name` / `login`),
    /// `user.login`, `account.acct`, `userId`; `published` ← `created_at`, `published`, `date`;
    /// `url` ← `html_url`, `url`.
    /// The parts of an item `fields` reads (and its id).
    package static let itemProjection = JSONProjection.members(
        ["id", "title", "body", "content", "text", "message", "userId", "html_url", "url", "created_at", "published", "date"]
    ).union(.parts(["author": .members(["name", "login"]), "user": .members(["login"]), "account": .members(["acct"])]))

    package static func item(_ item: JSON, source: RawJSON) -> FeedItem? {
        guard let id = item["id"]?.id else { return nil }
        var fields = fields(of: item, source: source)
        fields.id = id
        return fields
    }

    /// Every field but the id by the rules above (the `json` kind's defaults too); `id` empty.
    package static func fields(of item: JSON, source: RawJSON) -> FeedItem {
        func first(_ paths: [[String]], _ read: (JSON) -> String?) -> String? {
            for path in paths {
                if let value = item[path].flatMap(read) { return value }
            }
            return nil
        }
        return FeedItem(
            id: "",
            title: first([["title"]], \.string),
            text: first([["body"], ["content"], ["text"], ["message"]], \.string),
            author: first([["author"], ["author", "name"], ["author", "login"], ["user", "login"],
                           ["account", "acct"], ["userId"]], \.text),
            url: first([["html_url"], ["url"]], \.string),
            published: Timestamp.normalize(first([["created_at"], ["published"], ["date"]], \.string)),
            source: source)
    }
}
