import FoundationEssentials

/// A complete HTTP response: every status is a response (a 404 or a 500 is not an error at this
/// layer; what a status means is the feed's business).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// The headers of the final response (after redirects), in order, repeats kept.
    public var headers: HTTPHeaders
    /// The body after content decoding (gzip, br, zstd).
    public var body: Data
    /// The URL that answered, after redirects.
    public var effectiveURL: String
    /// `Retry-After` in seconds from now (an HTTP-date already converted; a past date is 0), when
    /// the server sent one.
    public var retryAfter: Duration?
    /// Time from the start of the request to the end of the body.
    public var elapsed: Duration

    public init(
        status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(),
        effectiveURL: String, retryAfter: Duration? = nil, elapsed: Duration = .zero
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.effectiveURL = effectiveURL
        self.retryAfter = retryAfter
        self.elapsed = elapsed
    }
}
