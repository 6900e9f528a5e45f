import FeedHTTP
import FeedModel
import FoundationEssentials

/// The `indexed` kind: `GET {url}/{n}` returns post `n` (jsonplaceholder's `/posts/1`…), and a
/// 404 means "no post `n` yet", not an error. The cursor is the index requested; a post's own
/// `id` names the entry and never moves the cursor.
package enum IndexedFeed {
    package static func url(base: String, index: Int) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/\(index)"
    }

    /// The post in a 200 response, or nil when it has no usable id (the index is then skipped).
    /// A post is `{userId, id, title, body}`: `title` is the title, `body` the text, `userId`
    /// (a number's exact text, or a string) the author.
    /// The parts of a post `item` reads, and what `FeedShape` reads for its hints.
    package static let projection = JSONProjection.members(["id", "title", "body", "userId"]).union(
        FeedShape.projection)

    package static func item(from response: HTTPResponse) throws(FeedFailure) -> FeedItem? {
        let what = "post at \(response.effectiveURL)"
        let document = try FeedDocument.parse(response, what: what, projection)
        guard case .object = document.value else {
            throw FeedDocument.wrongShape(
                document.value, body: response.body, expected: "a post object", kind: .indexed, what: what)
        }
        let post = document.value
        guard let id = post["id"]?.id else {
            if let other = FeedShape.guess(post), other != .indexed {
                throw FeedDocument.wrongShape(
                    post, body: response.body, expected: "a post object with an `id`", kind: .indexed,
                    what: what)
            }
            return nil
        }
        return FeedItem(
            id: id, title: post["title"]?.string, text: post["body"]?.string, author: post["userId"]?.text,
            source: document.source)
    }

    /// The post in a 200 response when it has a usable id and passes `filter`; when it has no
    /// usable id, the skipped item (index `index`); neither when the filter keeps it out.
    package static func item(
        from response: HTTPResponse, index: Int, passing filter: ItemFilter?
    ) throws(FeedFailure) -> (item: FeedItem?, skipped: SkippedItem?) {
        guard let item = try item(from: response) else {
            let id = (try? JSONParser.value(of: response.body, projection))?["id"]
            return (nil, SkippedItem(position: index, page: response.effectiveURL, why: SkippedItem.why(id: id)))
        }
        guard let filter else { return (item, nil) }
        return (try filter.passing(PageItems([item]), page: response.effectiveURL).isEmpty ? nil : item, nil)
    }
}
