/// Secrets kept out of everything feedcli shows or stores: a password in a URL
/// (`https://user:pw@host/`) is used for the request but shown as `user:***@`.
public enum Redaction {
    /// `text` with the password of every `scheme://user:password@` in it replaced by `***`.
    public static func maskingPasswords(in text: String) -> String {
        // Byte scan first: nearly every URL has no userinfo, and this runs for every request.
        guard text.utf8.contains(UInt8(ascii: "@")), text.contains("://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let scheme = schemeSeparator(in: rest) {
            result += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            // The authority ends at the first `/`, `?`, `#` or whitespace; userinfo at its last `@`.
            let authorityEnd = rest.firstIndex { "/?#".contains($0) || $0.isWhitespace } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                result += authority[...colon] + "***" + authority[at...]
            } else {
                result += authority
            }
            rest = rest[authorityEnd...]
        }
        return result + rest
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
