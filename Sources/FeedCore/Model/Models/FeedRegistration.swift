import FoundationEssentials
import Glibc

/// A feed as registered by `feeds add`: what to fetch and how. The bearer token itself is never
/// stored, only the name of the environment variable that holds it.
public struct FeedRegistration: Sendable, Equatable {
    public var name: String
    public var url: String
    public var kind: FeedKind
    /// Environment variable with the bearer token; nil means `FEEDCLI_TOKEN` if set.
    public var tokenEnv: String?
    /// A `json` feed's mapping, and any feed's filter.
    public var expressions: FeedExpressions

    public init(
        name: String, url: String, kind: FeedKind, tokenEnv: String? = nil,
        expressions: FeedExpressions = FeedExpressions()
    ) {
        self.name = name
        self.url = url
        self.kind = kind
        self.tokenEnv = tokenEnv
        self.expressions = expressions
    }

    /// The feed every store starts with, so plain `feedcli next` works.
    public static let defaultFeed = FeedRegistration(
        name: "posts", url: "https://jsonplaceholder.typicode.com/posts", kind: .indexed)

    /// Feed names are path-safe (they name lock files) and shell-friendly.
    /// Letters and digits of every script (`日本語のブログ`, `fboës`), with their combining marks,
    /// and `-`, `_`, `.`: never a space, a slash or anything a shell reads specially.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= nameLengthLimit && !name.hasPrefix(".") && !name.hasPrefix("-")
            && name.unicodeScalars.allSatisfy(isNameScalar)
    }

    /// The most characters a feed name holds.
    public static let nameLengthLimit = 64

    /// Whether a feed name may hold `scalar`.
    public static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_"
                || scalar == "."
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .nonspacingMark, .spacingMark:
            return true
        default:
            return false
        }
    }

    /// Only absolute http and https URLs with a host; with `webSocket`, ws and wss ones instead
    /// (the feed URLs of the WebSocket kinds).
    public static func isValidURL(_ url: String, webSocket: Bool = false) -> Bool {
        let lower = url.lowercased()
        let schemes = webSocket ? ["ws://", "wss://"] : ["http://", "https://"]
        guard schemes.contains(where: { lower.hasPrefix($0) }) else { return false }
        let rest = url.drop(while: { $0 != ":" }).dropFirst(3)
        return !rest.isEmpty && !rest.hasPrefix("/") && !url.contains(where: { $0.isWhitespace })
    }

    /// The longest next-page link feedcli follows: servers refuse longer request lines (414).
    package static let linkLengthLimit = 8192

    /// Why a server's link (a next page) cannot be requested, as the end of a sentence ("is not
    /// an http or https URL"); nil when it can. With `webSocket`, the same of a ws or wss URL.
    package static func whyUnusableLink(_ url: String, webSocket: Bool = false) -> String? {
        guard isValidURL(url, webSocket: webSocket) else {
            return url.contains(where: { $0.isWhitespace })
                ? "holds white space" : webSocket ? "is not a ws or wss URL" : "is not an http or https URL"
        }
        if url.utf8.count > linkLengthLimit { return "is longer than \(linkLengthLimit) bytes" }
        if url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "holds a control character"
        }
        let rest = url.drop(while: { $0 != ":" }).dropFirst(3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return "has a bad host" }
            let after = host[host.index(after: close)...]
            port = after.isEmpty ? nil : (after.first == ":" ? after.dropFirst() : nil)
            if !after.isEmpty, port == nil { return "has a bad host" }
        } else {
            port = host.firstIndex(of: ":").map { host[host.index(after: $0)...] }
            if host.prefix(while: { $0 != ":" }).isEmpty { return "has no host" }
        }
        if let port, !port.isEmpty {
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65535).contains(number)
            else {
                return "has a bad port"
            }
        }
        return nil
    }

    /// Whether `name` can name an environment variable (`--token-env`): letters, digits and `_`,
    /// not starting with a digit.
    public static func isValidVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
    }
}
