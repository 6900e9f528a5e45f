import FoundationEssentials

/// One GET request and the limits it runs under. Defaults are the contract's.
public struct HTTPRequest: Sendable, Equatable {
    public var url: String
    /// Extra request headers (`If-None-Match`, `Authorization`, …). `User-Agent` and
    /// `Accept-Encoding` are set by the client.
    public var headers: HTTPHeaders
    /// The whole request, from connecting to the last body byte.
    public var timeout: Duration
    public var connectTimeout: Duration
    /// Largest body accepted, counted while receiving (decoded bytes). Larger is `bodyTooLarge`.
    public var maxBodySize: Int
    public var maxRedirects: Int
    /// For a stream (`HTTPClient.stream`): the longest silence (no byte at all) before the
    /// connection is dropped with `.idle`. A stream has no overall `timeout` and no body cap (its
    /// reader bounds each event).
    public var idleTimeout: Duration?

    /// The most bytes a stream's transfer reads from its socket at a time (curl's receive
    /// buffer, 16 KiB by default): a stream that arrives faster than it is stored is handed on
    /// in fewer, larger reads (each then cut into batches of `StreamSync.batchSize`). A slow
    /// stream's reads hold what came, so an event alone is handed on as it comes.
    public static let streamReadSize = 64 * 1024

    public init(
        url: String,
        headers: HTTPHeaders = HTTPHeaders(),
        timeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10),
        maxBodySize: Int = 16 * 1024 * 1024,
        maxRedirects: Int = 5,
        idleTimeout: Duration? = nil
    ) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxBodySize = maxBodySize
        self.maxRedirects = maxRedirects
        self.idleTimeout = idleTimeout
    }
}
