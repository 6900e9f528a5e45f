import FeedModel
import FoundationEssentials

/// An item's fields by the first name present, the contract's rules for the `linked` kind and
/// the defaults of the `json` kind's expressions: `title` ← `title`; `text` ← `body`, `content`,
/// `text`, `message`; `author` ← `author` (or its `name` / `login`), `user.login`,
/// `account.acct`, `userId`; `published` ← `created_at`, `published`, `date`; `url` ←
/// `html_url`, `url`.
package enum DefaultFields {
    /// The parts of an item `fields` reads, and its id.
    package static let projection = JSONProjection.members(
        ["id", "title", "body", "content", "text", "message", "userId", "html_url", "url", "created_at", "published", "date"]
    ).union(.parts(["author": .members(["name", "login"]), "user": .members(["login"]), "account": .members(["acct"])]))

    /// Every field but the id by the rules above; `id` empty.
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
