/// How errors of the other layers (HTTP, store, anything unexpected) become `FeedFailure`s.
/// Kept apart from `FeedFailure` itself so that the decoders, which only need the type, build
/// without curl or SQLite (the fuzz targets compile them alone).
extension FeedFailure {
    /// The failure an HTTP-layer error means for a feed; `url` (when known) is named in it.
    public init(_ error: HTTPError, url: String?) {
        let text = error.description + (url.map { " (\($0))" } ?? "")
        switch error.kind {
        case .timedOut, .couldNotConnect, .couldNotResolveHost, .connectionLost, .partialBody:
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

    /// Wraps any error so that nothing escapes as an untyped crash. Errors feedcli raises are
    /// all one of the above; anything else is a store or system error and says what it is.
    public static func wrap(_ error: any Error) -> FeedFailure {
        switch error {
        case let failure as FeedFailure: failure
        case let http as HTTPError: FeedFailure(http, url: nil)
        case let status as HTTPStatusFailure: status.failure
        default: StoreFile.failure(error, path: "the state store")
        }
    }
}
