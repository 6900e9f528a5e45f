import FoundationEssentials
import Glibc

/// What a feed kind extracts from one item before it is stored: an `Entry` without the feed's
/// name, the fetch time and the read flag.
public struct FeedItem: Sendable, Equatable {
    public var id: String
    public var title: String?
    public var text: String?
    public var author: String?
    public var url: String?
    public var published: String?
    public var source: RawJSON

    public init(
        id: String, title: String? = nil, text: String? = nil, author: String? = nil,
        url: String? = nil, published: String? = nil, source: RawJSON
    ) {
        self.id = id
        self.title = title
        self.text = text
        self.author = author
        self.url = url
        self.published = published
        self.source = source
    }

    public func entry(feed: String, fetchedAt: String, read: Bool = false) -> Entry {
        Entry(
            feed: feed, id: id, title: title, text: text, author: author, url: url,
            published: published, fetchedAt: fetchedAt, read: read, source: source)
    }
}
