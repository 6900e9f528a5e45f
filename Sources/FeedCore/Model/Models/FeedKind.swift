import FoundationEssentials

/// How a feed's server pages its items; see the contract's Feeds table.
public enum FeedKind: String, Sendable, CaseIterable {
    /// `GET {url}/{n}` returns post `n`; 404 means "not yet".
    case indexed
    /// Graph-API style `{data, paging: {next}}` pages, newest first.
    case graph
    /// JSON Feed 1.0 / 1.1 documents chained by `next_url`.
    case jsonfeed
    /// A JSON array per page, chained by an RFC 8288 `Link: <…>; rel="next"` header.
    case linked
    /// Any JSON, read by the feed's jq expressions (`FeedExpressions`).
    case json
    /// Presets: shipped `json` mappings for public APIs (`Feeds/FeedPresets.swift`).
    case reddit, bluesky, discourse, hn, lemmy, stackexchange

    /// The default `--max-pages` for a walk of this kind.
    public var defaultMaxPages: Int { self == .indexed ? 100 : 10 }
}
