import FeedModel
import FoundationEssentials

/// What `feedcli search` asks of a store: the entries that match a query, from the store's
/// index (SQLite's FTS5 table, PostgreSQL's `tsvector` column) or, for the in-memory store of
/// the tests, a scan; each engine matches what `SearchDocument.matches` says.
///
/// Threading: as `FeedStoring`: calls may block; make them from a thread that may.
public protocol EntrySearching: Sendable {
    /// The entries matching `request`, newest first (by `published`, else `fetched_at`), or best
    /// match first when it is `ranked`, each with its rank then (higher is better), one at a
    /// time until `body` returns false.
    func search(_ request: SearchRequest, _ body: (SearchHit) throws -> Bool) throws(FeedFailure)
}

/// One search: the query and what narrows it.
public struct SearchRequest: Sendable {
    package var query: SearchQuery
    /// Only these feeds (all when empty).
    public var feeds: [String]
    public var unreadOnly: Bool
    /// Only entries listed at or after this time (`published`, else `fetched_at`).
    public var since: Date?
    /// At most this many (nil: all).
    public var limit: Int?
    public var ranked: Bool
    /// Told a line for the user when the search first indexes a store made before search.
    public var notice: @Sendable (String) -> Void
    /// Told how far an indexing of many entries has come (`indexed`, of `total`), after each
    /// step, when it takes more than one; the last call has `indexed == total`.
    public var progress: @Sendable (_ indexed: Int64, _ total: Int64) -> Void = { _, _ in }

    package init(
        query: SearchQuery, feeds: [String] = [], unreadOnly: Bool = false, since: Date? = nil, limit: Int? = nil,
        ranked: Bool = false, notice: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.query = query
        self.feeds = feeds
        self.unreadOnly = unreadOnly
        self.since = since
        self.limit = limit
        self.ranked = ranked
        self.notice = notice
    }

    /// `since` as the stores' timestamps are written (they compare as text).
    package var sinceStamp: String? { since.map(Timestamp.format) }
}

/// An entry that matched, with its rank when the search was ranked.
public struct SearchHit: Sendable {
    public var entry: Entry
    public var rank: Double?

    public init(entry: Entry, rank: Double? = nil) {
        self.entry = entry
        self.rank = rank
    }
}
