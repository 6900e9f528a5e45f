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
    /// A live stream of Server-Sent Events (`text/event-stream`): each event's `data` is an item.
    case sse
    /// A live stream of newline-delimited JSON (`application/x-ndjson`, `application/jsonl`):
    /// each line is an item.
    case ndjson
    /// Stream presets: Mastodon's streaming API (SSE, `update` events are statuses) and
    /// Wikimedia's EventStreams (SSE, entries keyed by `meta.id`).
    case mastodon, wikimedia
    /// WebSocket streams: Bluesky's Jetstream (`commit` events that create a record are
    /// entries, resumed by `time_us`) and a Nostr relay (NIP-01: one `REQ`, its `EVENT`s).
    case jetstream, nostr

    /// The default `--max-pages` for a walk of this kind.
    public var defaultMaxPages: Int { self == .indexed ? 100 : 10 }

    /// Whether the feed is a live stream (read by `follow`, and by `sync` until it goes quiet)
    /// rather than polled pages.
    public var isStream: Bool { streamFormat != nil }

    /// How a stream kind's response is cut into items; nil for the polled kinds.
    public var streamFormat: StreamFormat? {
        switch self {
        case .sse, .mastodon, .wikimedia: .serverSentEvents
        case .ndjson: .jsonLines
        case .jetstream: .jetstream
        case .nostr: .nostr
        default: nil
        }
    }
}
