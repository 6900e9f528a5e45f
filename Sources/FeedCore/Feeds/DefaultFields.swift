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
        [
            "id", "title", "body", "content", "text", "message", "userId", "html_url", "url", "created_at", "published",
            "date",
        ]
    ).union(
        .parts(["author": .members(["name", "login"]), "user": .members(["login"]), "account": .members(["acct"])]))

    /// Every field but the id by the rules above; `id` empty.
    package static func fields(of item: JSON, source: RawJSON) -> FeedItem {
        FeedItem(
            id: "",
            title: first(titlePaths, of: item) { $0.string },
            text: first(textPaths, of: item) { $0.string },
            author: first(authorPaths, of: item) { $0.text },
            url: first(urlPaths, of: item) { $0.string },
            published: Timestamp.normalize(first(publishedPaths, of: item) { $0.string }),
            source: source)
    }

    // The rules' paths, made once: built at each call (and read through key paths), they were
    // most of what reading an item's fields cost.
    private static let titlePaths = [["title"]]
    private static let textPaths = [["body"], ["content"], ["text"], ["message"]]
    private static let authorPaths = [
        ["author"], ["author", "name"], ["author", "login"], ["user", "login"], ["account", "acct"], ["userId"],
    ]
    private static let urlPaths = [["html_url"], ["url"]]
    private static let publishedPaths = [["created_at"], ["published"], ["date"]]

    /// The first of `paths` in `item` that `read` makes a value of.
    private static func first(_ paths: [[String]], of item: JSON, _ read: (JSON) -> String?) -> String? {
        for path in paths {
            if let value = item[path].flatMap(read) { return value }
        }
        return nil
    }
}
