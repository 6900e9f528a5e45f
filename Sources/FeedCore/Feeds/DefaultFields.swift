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
        let read = Members(of: item)
        return FeedItem(
            id: "",
            title: read.title?.string,
            text: read.body?.string ?? read.content?.string ?? read.text?.string ?? read.message?.string,
            author: read.author?.text ?? read.author?["name"]?.text ?? read.author?["login"]?.text
                ?? read.user?["login"]?.text ?? read.account?["acct"]?.text ?? read.userId?.text,
            url: read.htmlURL?.string ?? read.url?.string,
            published: Timestamp.normalize(read.createdAt?.string ?? read.published?.string ?? read.date?.string),
            source: source)
    }

    /// The members the rules read, found in one pass over the item's members (the last of a
    /// name, as a lookup by name finds it). Looked up one path at a time, the thirteen paths
    /// each went through the members again: a fifth of what reading a stream's event cost, and
    /// twice what this one pass costs (callgrind).
    private struct Members {
        var title, body, content, text, message, author, user, account, userId: JSON?
        var htmlURL, url, createdAt, published, date: JSON?

        init(of item: JSON) {
            guard case .object(let object) = item else { return }
            for (key, value) in object.members {
                switch key {
                case "title": title = value
                case "body": body = value
                case "content": content = value
                case "text": text = value
                case "message": message = value
                case "author": author = value
                case "user": user = value
                case "account": account = value
                case "userId": userId = value
                case "html_url": htmlURL = value
                case "url": url = value
                case "created_at": createdAt = value
                case "published": published = value
                case "date": date = value
                default: break
                }
            }
        }
    }
}
