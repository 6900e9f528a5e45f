import FeedModel
import FoundationEssentials

/// A response whose status means the fetch failed, before it is judged as a `FeedFailure`. Kept
/// separate so retries can look at the status and the server's `Retry-After`.
public struct HTTPStatusFailure: Error, Sendable, CustomStringConvertible {
    public let status: Int
    public let url: String
    public let retryAfter: Duration?

    public init(status: Int, url: String, retryAfter: Duration? = nil) {
        self.status = status
        self.url = url
        self.retryAfter = retryAfter
    }

    /// 408, 429 and 5xx may succeed later; every other failing status will not.
    package var isRetryable: Bool { status == 408 || status == 429 || (500...599).contains(status) }

    public var description: String { failure.description }

    public var failure: FeedFailure {
        switch status {
        case 401, 403: .unauthorized(status: status, url: url)
        case _ where isRetryable: .temporary("HTTP \(status) from \(url)")
        case 400...499: .refused(status: status, url: url)
        default: .protocolError("unexpected HTTP \(status) from \(url)")
        }
    }
}
