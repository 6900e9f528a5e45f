import CCurl
import FoundationEssentials

/// Why a request produced no response. `message` is curl's own explanation (its error buffer) when
/// it gave one, for `--verbose` and for `status`.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The URL could not be parsed.
        case invalidURL
        /// A scheme other than http or https, for the request or for a redirect.
        case unsupportedProtocol
        case couldNotResolveHost
        case couldNotConnect
        case timedOut
        case tooManyRedirects
        /// The body passed the request's `maxBodySize`.
        case bodyTooLarge
        case badContentEncoding
        /// The connection closed before the announced body was complete.
        case partialBody
        /// The server's reply was not HTTP (garbage, broken framing).
        case malformedReply
        /// Connection reset, closed before any answer, or a send/receive failure midway.
        case connectionLost
        /// TLS handshake or certificate verification failed.
        case tls
        /// A stream carried no byte (not even a heartbeat) for the request's `idleTimeout`.
        case idle
        /// The subscriber disposed the request.
        case cancelled
        /// Anything else curl reported.
        case other
    }

    public var kind: Kind
    public var message: String
    /// curl's `CURLcode`, 0 when the error did not come from curl.
    public var curlCode: Int

    public init(_ kind: Kind, message: String = "", curlCode: Int = 0) {
        self.kind = kind
        self.message = message
        self.curlCode = curlCode
    }

    /// What went wrong in words: the kind, then curl's own explanation when it gave one.
    public var description: String {
        message.isEmpty ? kind.summary : "\(kind.summary): \(message)"
    }

    /// True for failures worth retrying later: the network or the server may recover.
    public var isTransient: Bool {
        switch kind {
        case .couldNotResolveHost, .couldNotConnect, .timedOut, .partialBody, .connectionLost, .idle: true
        default: false
        }
    }

    /// Response headers larger than this are refused: no feed needs more, and a server sending
    /// endless headers must not exhaust memory.
    package static let maxHeaderBytes = 256 * 1024

    package static var headersTooLarge: HTTPError {
        HTTPError(.malformedReply, message: "the response headers exceed \(maxHeaderBytes / 1024) KiB")
    }

    package static func from(curl code: CURLcode, message: String) -> HTTPError {
        let kind: Kind
        switch code {
        case CURLE_URL_MALFORMAT: kind = .invalidURL
        case CURLE_UNSUPPORTED_PROTOCOL: kind = .unsupportedProtocol
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: kind = .couldNotResolveHost
        case CURLE_COULDNT_CONNECT: kind = .couldNotConnect
        case CURLE_OPERATION_TIMEDOUT: kind = .timedOut
        case CURLE_TOO_MANY_REDIRECTS: kind = .tooManyRedirects
        case CURLE_FILESIZE_EXCEEDED: kind = .bodyTooLarge
        case CURLE_BAD_CONTENT_ENCODING: kind = .badContentEncoding
        case CURLE_PARTIAL_FILE: kind = .partialBody
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            kind = .malformedReply
        case CURLE_GOT_NOTHING:
            // A connection closed before any byte of an answer is a server going away (a restart,
            // a proxy giving up), as a reset is: worth another try, not "not HTTP".
            kind = .connectionLost
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            // curl reports headers over its own limit as a receive error; it is the server's fault.
            let lower = message.lowercased()
            kind =
                lower.contains("header") && (lower.contains("large") || lower.contains("rejected"))
                ? .malformedReply : .connectionLost
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE:
            kind = .tls
        case CURLE_ABORTED_BY_CALLBACK: kind = .cancelled
        default: kind = .other
        }
        let text = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        // A reply without a status line is HTTP/0.9 to curl, which reports it as an unsupported
        // protocol; it is the server breaking HTTP, not a scheme we refused.
        if code == CURLE_UNSUPPORTED_PROTOCOL, text.contains("HTTP/0.9") {
            return HTTPError(.malformedReply, message: text, curlCode: Int(code.rawValue))
        }
        return HTTPError(kind, message: text, curlCode: Int(code.rawValue))
    }
}

extension HTTPError.Kind {
    /// The kind in words, for messages (never the case name).
    package var summary: String {
        switch self {
        case .invalidURL: "invalid URL"
        case .unsupportedProtocol: "unsupported protocol"
        case .couldNotResolveHost: "cannot resolve the host"
        case .couldNotConnect: "cannot connect"
        case .timedOut: "timed out"
        case .tooManyRedirects: "too many redirects"
        case .bodyTooLarge: "response too large"
        case .badContentEncoding: "bad content encoding"
        case .partialBody: "the reply was cut short"
        case .malformedReply: "unreadable reply"
        case .connectionLost: "the connection broke"
        case .tls: "TLS failure"
        case .idle: "the stream went silent"
        case .cancelled: "cancelled"
        case .other: "transfer failed"
        }
    }
}
