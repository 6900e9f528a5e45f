import FoundationEssentials

/// The two wire formats of live streams.
public enum StreamFormat: String, Sendable {
    /// `text/event-stream` (the WHATWG HTML standard's Server-Sent Events).
    case serverSentEvents
    /// One JSON value a line.
    case jsonLines
    /// Bluesky's Jetstream over WebSocket: one JSON event a text message.
    case jetstream
    /// A Nostr relay over WebSocket (NIP-01): JSON arrays, `["EVENT", sub, event]` and the rest.
    case nostr

    /// Whether the stream is a WebSocket connection (an upgrade, then messages) rather than an
    /// HTTP response read as it arrives.
    public var isWebSocket: Bool { self == .jetstream || self == .nostr }

    /// Whether a response's `Content-Type` is this format's (parameters and case ignored).
    public func accepts(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", omittingEmptySubsequences: false).first ?? ""
        let type = String(
            media.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" })
                .reversed()
        ).lowercased()
        switch self {
        case .serverSentEvents: return type == "text/event-stream"
        case .jsonLines:
            return [
                "application/x-ndjson", "application/jsonl", "application/json-seq", "application/jsonlines",
                "application/x-jsonlines", "application/stream+json",
            ].contains(type)
        case .jetstream, .nostr: return false
        }
    }

    /// The stream kind a response of `contentType` is, for `feeds add` without `--kind`.
    public static func kind(forContentType contentType: String?) -> FeedKind? {
        if StreamFormat.serverSentEvents.accepts(contentType: contentType) { return .sse }
        if StreamFormat.jsonLines.accepts(contentType: contentType) { return .ndjson }
        return nil
    }
}
