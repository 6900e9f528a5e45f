import FoundationEssentials

/// Secrets kept out of everything feedcli shows or stores: a password in a URL
/// (`https://user:pw@host/`) and the value of a query parameter named like a credential
/// (`?access_token=…`, `&api_key=…`) are used for the request but shown as `***`.
public enum Redaction {
    /// Query parameters whose values are credentials (compared case-insensitively).
    package static let credentialParameters: Set<String> = [
        "access_token", "token", "key", "api_key", "apikey", "secret", "password", "sig", "signature", "auth",
        "sslpassword",
    ]

    /// `text` with the password of every `scheme://user:password@` in it, and the value of every
    /// credential query parameter (`?token=…`, `&key=…`), replaced by `***`.
    public static func maskingSecrets(in text: String) -> String {
        maskingParameters(in: maskingPasswords(in: text))
    }

    /// Whether `url` holds a secret as feedcli shows it masked (`user:***@`, `?token=***`): such
    /// a URL came from feedcli's own output, and the secret is not in it (`feeds import`).
    public static func hasMaskedSecret(_ url: String) -> Bool {
        if url.contains(":***@") { return true }
        let query =
            url.split(separator: "#", maxSplits: 1).first?.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        return query.split(separator: "&").contains { parameter in
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return parts.count == 2 && parts[1] == "***" && credentialParameters.contains(parts[0].lowercased())
        }
    }

    /// `text` with every `?NAME=VALUE` or `&NAME=VALUE` whose NAME is a credential parameter
    /// shown as `NAME=***`; the value ends at `&`, `#`, whitespace or a quote.
    private static func maskingParameters(in text: String) -> String {
        // Byte scan first: most URLs have no query, and this runs for every request logged.
        guard text.utf8.contains(UInt8(ascii: "=")) else { return text }
        var result = ""
        var rest = Substring(text)
        while let start = rest.firstIndex(where: { $0 == "?" || $0 == "&" }) {
            let nameStart = rest.index(after: start)
            result.append(contentsOf: rest[...start])
            rest = rest[nameStart...]
            guard
                let equals = rest.firstIndex(where: {
                    $0 == "=" || $0 == "&" || $0 == "?" || $0 == "#" || $0.isWhitespace
                }),
                rest[equals] == "="
            else { continue }
            let name = rest[..<equals]
            let valueStart = rest.index(after: equals)
            let valueEnd =
                rest[valueStart...].firstIndex { $0 == "&" || $0 == "#" || $0.isWhitespace || $0 == "\"" || $0 == "'" }
                ?? rest.endIndex
            if credentialParameters.contains(name.lowercased()), valueStart < valueEnd {
                result.append(contentsOf: rest[...equals])
                result.append("***")
                rest = rest[valueEnd...]
            } else {
                result.append(contentsOf: rest[..<valueStart])
                rest = rest[valueStart...]
            }
        }
        result.append(contentsOf: rest)
        return result
    }

    /// `text` with the password of every `scheme://user:password@` in it replaced by `***`.
    private static func maskingPasswords(in text: String) -> String {
        // Byte scan first: nearly every URL has no userinfo, and this runs for every request.
        guard text.utf8.contains(UInt8(ascii: "@")), text.contains("://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let scheme = schemeSeparator(in: rest) {
            let name = schemeName(before: scheme.lowerBound, in: rest).lowercased()
            result.append(contentsOf: rest[..<scheme.upperBound])
            rest = rest[scheme.upperBound...]
            if name == "postgres" || name == "postgresql" {
                // libpq reads a URL's userinfo up to the first `@` before any `/`, whatever it
                // holds (`?`, `#`, spaces): a password is masked as libpq would use it.
                let end = rest.firstIndex(of: "/") ?? rest.endIndex
                if let at = rest[..<end].firstIndex(of: "@") {
                    let userinfo = rest[..<at]
                    if let colon = userinfo.firstIndex(of: ":") {
                        result.append(contentsOf: userinfo[...colon])
                        result.append("***")
                    } else {
                        result.append(contentsOf: userinfo)
                    }
                    rest = rest[at...]
                }
            }
            // The authority ends at the first `/`, `?`, `#` or whitespace; userinfo at its last `@`.
            let authorityEnd = rest.firstIndex { "/?#".contains($0) || $0.isWhitespace } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                result.append(contentsOf: authority[...colon])
                result.append("***")
                result.append(contentsOf: authority[at...])
            } else {
                result.append(contentsOf: authority)
            }
            rest = rest[authorityEnd...]
        }
        result.append(contentsOf: rest)
        return result
    }

    /// The letters just before `end` in `text`: the scheme's name before a `://`. A loop, not
    /// `reversed().prefix(while:).reversed()`, whose nested generic types the runtime had to
    /// build at the first call: a millisecond of every command on a PostgreSQL store, whose URL
    /// is masked as it connects.
    private static func schemeName(before end: Substring.Index, in text: Substring) -> Substring {
        var start = end
        while start > text.startIndex {
            let previous = text.index(before: start)
            guard text[previous].isLetter else { break }
            start = previous
        }
        return text[start..<end]
    }

    /// The range of the first `://` in `text`.
    private static func schemeSeparator(in text: Substring) -> Range<Substring.Index>? {
        var index = text.startIndex
        while let colon = text[index...].firstIndex(of: ":") {
            let end = text.index(colon, offsetBy: 3, limitedBy: text.endIndex) ?? text.endIndex
            if text[colon..<end].elementsEqual("://") { return colon..<end }
            index = text.index(after: colon)
        }
        return nil
    }
}
