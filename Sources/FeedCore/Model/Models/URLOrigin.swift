import FoundationEssentials
import Glibc

/// The origin of a URL (RFC 6454): scheme, host and port, the unit a credential belongs to.
///
/// A feed's bearer token and the `user:password` of its URL are sent only to requests whose
/// origin equals the feed URL's: whatever leads a request elsewhere (a redirect, a next-page link,
/// a stored resume URL), the request still goes, without them.
///
/// Compared after normalisation: scheme and host lower-cased, the default port made explicit
/// (`http://a` and `http://A:80/` are one origin). Nothing else is equated: `localhost` and
/// `127.0.0.1`, a host with and without a trailing dot, or a host spelled with percent escapes
/// are different origins, which errs towards withholding a credential, never towards leaking it.
public struct URLOrigin: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int

    /// The origin of an absolute `http`, `https`, `ws` or `wss` URL (a WebSocket stream's); nil
    /// for anything else (no scheme, another scheme, no host, a port that is not a number from 0
    /// to 65535). `ws` is not `http` (nor `wss` `https`): a stream's token is not sent to the
    /// same host's web pages, which errs towards withholding it.
    public init?(_ url: String) {
        guard let separator = url.utf8.firstRange(of: "://".utf8) else { return nil }
        let scheme = String(Substring(url.utf8[..<separator.lowerBound])).lowercased()
        let defaultPort: Int
        switch scheme {
        case "http", "ws": defaultPort = 80
        case "https", "wss": defaultPort = 443
        default: return nil
        }
        let rest = url.utf8[separator.upperBound...]
        let authorityEnd =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            authority = authority[authority.index(after: at)...]
        }
        // An IPv6 literal keeps its colons inside brackets; the port follows the last `:` after it.
        let hostEnd: Substring.UTF8View.Index
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostEnd = authority.index(after: close)
        } else {
            hostEnd = authority.firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
        }
        let host = String(Substring(authority[..<hostEnd])).lowercased()
        guard !host.isEmpty else { return nil }
        var port = defaultPort
        let afterHost = authority[hostEnd...]
        if afterHost.first == UInt8(ascii: ":") {
            let digits = afterHost.dropFirst()
            if !digits.isEmpty {
                guard digits.count <= 5, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                    let number = Int(String(Substring(digits))), number <= 65535
                else { return nil }
                port = number
            }
        } else if !afterHost.isEmpty {
            return nil
        }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    public var description: String { "\(scheme)://\(host):\(port)" }

    /// Whether a request to `url` may carry the credentials of a feed at `feedURL`: both have an
    /// origin and it is the same one.
    public static func sharesCredentials(_ url: String, with feedURL: String) -> Bool {
        guard let origin = URLOrigin(url), let feedOrigin = URLOrigin(feedURL) else { return false }
        return origin == feedOrigin
    }
}
