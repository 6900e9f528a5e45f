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

    public init(name: String, url: String, kind: FeedKind, tokenEnv: String? = nil, expressions: FeedExpressions = FeedExpressions()) {
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
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.hasPrefix(".") && !name.hasPrefix("-")
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || scalar == "-" || scalar == "_" || scalar == ".")
            }
    }

    /// Only absolute http and https URLs with a host.
    public static func isValidURL(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        let rest = url.drop(while: { $0 != ":" }).dropFirst(3)
        return !rest.isEmpty && !rest.hasPrefix("/") && !url.contains(where: { $0.isWhitespace })
    }
}
