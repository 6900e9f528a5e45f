import FeedModel
import FoundationEssentials

/// What `export` writes of one stored entry, by the contract's export rules: the text keeps the
/// type the server gave it, the link is absolute http(s) or absent, the title is never blank.
package struct ExportedEntry {
    package let entry: Entry
    /// The text, when the entry has any that is not blank.
    package let text: String?
    /// Whether `text` is HTML (else plain text).
    package let isHTML: Bool
    /// The entry's link resolved against its feed's URL; nil when it has none or it is not a
    /// usable http(s) URL (`javascript:`, `data:`, a control character).
    package let link: String?
    /// The entry's title, else the beginning of its text as text, else its id: never blank.
    package let title: String
    /// Whether `title` is the entry's own (JSON Feed leaves a made-up one out).
    package let hasOwnTitle: Bool

    package init(_ entry: Entry, feed: FeedRegistration?) {
        self.entry = entry
        let text = entry.text.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        self.text = text
        let isHTML = text.map { Self.isHTML($0, source: entry.source, kind: feed?.kind) } ?? false
        self.isHTML = isHTML
        link = entry.url.flatMap { url in
            // An absolute http(s) link goes as the server wrote it; another is resolved first.
            if FeedRegistration.whyUnusableLink(url) == nil { return url }
            let absolute = feed.flatMap { URLReference.resolve(url, against: $0.url) } ?? url
            return FeedRegistration.whyUnusableLink(absolute) == nil ? absolute : nil
        }
        if let own = entry.title, !own.allSatisfy(\.isWhitespace) {
            title = own
            hasOwnTitle = true
        } else {
            // From the text's beginning only: a title needs 80 characters, not the whole text.
            let head = text.map { isHTML ? HTMLText.render(String($0.prefix(2000))).text : $0 } ?? ""
            let words = Self.collapsed(head, limit: 80)
            title = words.isEmpty ? entry.id : words
            hasOwnTitle = false
        }
    }

    /// The first `limit` scalars of `text` with each run of white space one space, and none at
    /// the ends: one line for a title. (Scalars, not characters: a title made for each of
    /// 100,000 exported entries must not pay for grapheme breaking; a combining mark at the
    /// cut is the only cost.)
    static func collapsed(_ text: String, limit: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(limit + 8)
        var count = 0
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let isSpace =
                scalar.isASCII ? scalar == " " || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
            if isSpace {
                pendingSpace = count > 0
                continue
            }
            // A space goes in only when a character follows it within the limit.
            guard count + (pendingSpace ? 1 : 0) < limit else { break }
            if pendingSpace {
                bytes.append(0x20)
                count += 1
                pendingSpace = false
            }
            bytes += scalar.utf8
            count += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the server sent the text as HTML. Known where the kind says which field it came
    /// from: a JSON Feed's `content_html` (when it has no `content_text`) and a linked item's
    /// `content` (Mastodon's HTML) are HTML; Graph messages, posts' bodies and the other linked
    /// fields are text, whatever characters they hold. A json feed's text is whatever its
    /// expression picked, so there (and for presets) only the text itself can tell.
    static func isHTML(_ text: String, source: RawJSON, kind: FeedKind?) -> Bool {
        switch kind {
        case .graph, .indexed:
            return false
        case .jsonfeed:
            let item = try? JSONParser.parse(source.text)
            return item?["content_text"]?.string == nil && item?["content_html"]?.string != nil
        case .linked:
            let item = try? JSONParser.parse(source.text)
            let field = ["body", "content", "text", "message"].first { item?[$0]?.string != nil }
            return field == "content" && HTMLText.looksLikeHTML(text)
        default:
            return HTMLText.looksLikeHTML(text)
        }
    }
}
