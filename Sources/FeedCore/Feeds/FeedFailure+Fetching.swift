import FeedHTTP
import FeedModel
import FoundationEssentials

/// How the errors of a fetch (curl's, an HTTP status) become `FeedFailure`s. The reactor adds the
/// store's errors on top (`FeedFailure.wrap`, FeedReactor).
extension FeedFailure {
    /// The failure an HTTP-layer error means for a feed; `url` (when known) is named in it.
    public init(_ error: HTTPError, url: String?) {
        let text = error.description + (url.map { " (\($0))" } ?? "")
        switch error.kind {
        case .timedOut, .couldNotConnect, .couldNotResolveHost, .connectionLost, .partialBody, .idle:
            self = .temporary(text)
        case .malformedReply, .badContentEncoding, .tooManyRedirects, .tls, .other:
            self = .protocolError(text)
        case .bodyTooLarge:
            self = .badData(text)
        case .invalidURL, .unsupportedProtocol:
            self = .configuration(text)
        case .cancelled:
            self = .interrupted
        }
    }

    /// The failure a fetch's error means, or nil for an error no fetch raises.
    package init?(fetching error: any Error) {
        switch error {
        case let failure as FeedFailure: self = failure
        case let http as HTTPError: self.init(http, url: nil)
        case let status as HTTPStatusFailure: self = status.failure
        default: return nil
        }
    }
}
