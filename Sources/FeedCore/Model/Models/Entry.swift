import FoundationEssentials
import Glibc

/// One stored item of a feed, in the contract's shape. Unique per `(feed, id)`.
///
/// Times are RFC 3339 strings in UTC (`Timestamp.format`), kept as text so listing never
/// re-formats them. `source` is the item exactly as the server sent it, compacted to one line
/// (whitespace between tokens removed), so it embeds as-is in JSON and JSON Lines output.
public struct Entry: Sendable, Equatable {
    public var feed: String
    public var id: String
    public var title: String?
    public var text: String?
    public var author: String?
    public var url: String?
    public var published: String?
    public var fetchedAt: String
    public var read: Bool
    public var source: RawJSON
    /// The store's number for the entry (0 before it is stored): its short handle `@SEQ`.
    public var seq: Int64

    /// The handle plain output shows, which `show`, `read`, `unread` and `open` accept in place
    /// of the id and which needs no quoting in a shell.
    public var handle: String { "@\(seq)" }

    public init(
        feed: String, id: String, title: String? = nil, text: String? = nil, author: String? = nil,
        url: String? = nil, published: String? = nil, fetchedAt: String, read: Bool = false,
        source: RawJSON, seq: Int64 = 0
    ) {
        self.feed = feed
        self.id = id
        self.title = title
        self.text = text
        self.author = author
        self.url = url
        self.published = published
        self.fetchedAt = fetchedAt
        self.read = read
        self.source = source
        self.seq = seq
    }
}
