import FeedModel
import FoundationEssentials

/// A response whose status means the fetch failed, before it is judged as a `FeedFailure`. Kept
/// separate so retries can look at the status and the server's `Retry-After`.
public struct HTTPStatusFailure: Error, Sendable, CustomStringConvertible {
    public let status: Int
    public let url: String
    public let retryAfter: Duration?
    /// What the server said of its refusal (`ServerMessage`), shown with a 4xx.
    public let serverSays: String?
    /// For a 401 or 403: which token went, and how to send one (`feeds set --token-env`).
    public let tokenHint: String?
    /// For a 3xx that is not followed (a WebSocket upgrade's, as no WebSocket client follows
    /// one): where it points, shown so the user can give that URL if it is the stream.
    public let redirectsTo: String?

    public init(
        status: Int, url: String, retryAfter: Duration? = nil, serverSays: String? = nil, tokenHint: String? = nil,
        redirectsTo: String? = nil
    ) {
        self.status = status
        self.url = url
        self.retryAfter = retryAfter
        self.serverSays = serverSays
        self.tokenHint = tokenHint
        self.redirectsTo = redirectsTo
    }

    /// 408, 429 and 5xx may succeed later; every other failing status will not.
    package var isRetryable: Bool { status == 408 || status == 429 || (500...599).contains(status) }

    public var description: String { failure.description }

    public var failure: FeedFailure {
        switch status {
        case 401, 403: .unauthorized(status: status, url: url + (tokenHint.map { " (\($0))" } ?? ""))
        case _ where isRetryable:
            // The server's own wait, when it gave one: what `status` shows as the next try.
            .temporary(
                "HTTP \(status) from \(url)"
                    + (retryAfter.map {
                        "; the server asks to wait \(WaitText.of(seconds: $0.components.seconds)) (Retry-After)"
                    } ?? ""))
        case 300...399 where redirectsTo != nil:
            .refused(
                status: status,
                url: url + " (it redirects to \(redirectsTo ?? ""), not followed: a WebSocket upgrade follows no"
                    + " redirect, so the token stays at its origin; if that is the stream, feeds add --replace it)")
        case 400...499: .refused(status: status, url: url + (serverSays.map { " (the server says: \($0))" } ?? ""))
        default: .protocolError("unexpected HTTP \(status) from \(url)")
        }
    }
}
