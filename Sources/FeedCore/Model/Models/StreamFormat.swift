import FoundationEssentials

/// The two wire formats of live streams.
public enum StreamFormat: String, Sendable {
    /// `text/event-stream` (the WHATWG HTML standard's Server-Sent Events).
    case serverSentEvents
    /// One JSON value a line.
    case jsonLines

    /// Whether a response's `Content-Type` is this format's (parameters and case ignored).
    public func accepts(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", omittingEmptySubsequences: false).first ?? ""
        let type = String(media.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()).lowercased()
        switch self {
        case .serverSentEvents: return type == "text/event-stream"
        case .jsonLines:
            return ["application/x-ndjson", "application/jsonl", "application/json-seq", "application/jsonlines",
                    "application/x-jsonlines", "application/stream+json"].contains(type)
        }
    }

    /// The stream kind a response of `contentType` is, for `feeds add` without `--kind`.
    public static func kind(forContentType contentType: String?) -> FeedKind? {
        if StreamFormat.serverSentEvents.accepts(contentType: contentType) { return .sse }
        if StreamFormat.jsonLines.accepts(contentType: contentType) { return .ndjson }
        return nil
    }
}
