import Foundation

/// An item of a `linked` feed: any JSON object with an `id` (GitHub issues, Mastodon statuses,
/// json-server rows). Fields are taken from the first of several names that is present, per the
/// contract.
enum LinkedItem {
    static func feedItem(_ value: JSONValue, source: RawJSON) -> FeedItem? {
        guard let id = value["id"]?.stringValue, !id.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else { return nil }
        func first(_ paths: [[String]]) -> String? {
            for path in paths {
                var current: JSONValue? = value
                for key in path { current = current?[key] }
                if let text = current?.stringValue { return text }
            }
            return nil
        }
        return FeedItem(
            id: id,
            title: first([["title"]]),
            text: first([["body"], ["content"], ["text"], ["message"]]),
            author: first([["author"], ["author", "name"], ["author", "login"], ["user", "login"],
                           ["account", "acct"], ["userId"]]),
            url: first([["html_url"], ["url"]]),
            published: Timestamp.normalize(first([["created_at"], ["published"], ["date"]])),
            source: source)
    }
}
