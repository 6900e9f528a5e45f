import Foundation

/// The `indexed` kind: `GET {url}/{n}` returns post `n` (jsonplaceholder's `/posts/1`…), and a
/// 404 means "no post `n` yet", not an error.
enum IndexedFeed {
    static func url(base: String, index: Int) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/\(index)"
    }

    /// The item in a 200 response. A post is `{userId, id, title, body}`; `title` is the title,
    /// `body` the text, `userId` (as a string) the author.
    static func item(from response: HTTPResponse) throws(FeedFailure) -> FeedItem {
        let post = try JSONDecoding.decode(Post.self, from: response.body, what: "post at \(response.effectiveURL)")
        return FeedItem(
            id: String(post.id), title: post.title, text: post.body, author: String(post.userId),
            source: RawJSON(response.body))
    }
}
