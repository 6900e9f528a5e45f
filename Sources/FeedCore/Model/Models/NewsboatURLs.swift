/// newsboat's `urls` file (`~/.newsboat/urls`), read as the outlines of an OPML file would be:
/// one feed a line, its URL first, then tags in double quotes, of which one that starts with `~`
/// names the feed (newsboat's own title for it); `#` starts a comment. newsboat's query, filter
/// and exec lines are no URL feedcli can fetch, and are left out.
/// (https://newsboat.org/releases/2.30/docs/newsboat.html, "The urls file")
public enum NewsboatURLs {
    /// The outlines of `text` (`xmlUrl`, and `title` from a `~` tag), or nil when it is not a
    /// urls file: some line that is not blank, a comment, or a line beginning with a URL.
    public static func outlines(in text: String) -> [[String: String]]? {
        var outlines: [[String: String]] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let line = line.trimmingPrefix(while: \.isWhitespace)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let url = String(line.prefix { !$0.isWhitespace })
            // `"query:Unread:unread = \"yes\""` comes quoted; `exec:` and `filter:` do not.
            if ["query:", "filter:", "exec:"].contains(where: { url.hasPrefix($0) || url.hasPrefix("\"" + $0) }) {
                continue
            }
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else { return nil }
            var outline = ["xmlUrl": url]
            if let title = tags(in: line.dropFirst(url.count)).first(where: { $0.hasPrefix("~") }) {
                outline["title"] = String(title.dropFirst())
            }
            outlines.append(outline)
        }
        return outlines.isEmpty ? nil : outlines
    }

    /// The double-quoted tags after a URL (a tag without quotes is a word of its own).
    private static func tags(in rest: Substring) -> [String] {
        var tags: [String] = []
        var rest = rest[...]
        while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[start...]
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                tags.append(String(body[..<end]))
                rest = end < body.endIndex ? body[body.index(after: end)...] : body[end...]
            } else {
                let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
                tags.append(String(rest[..<end]))
                rest = rest[end...]
            }
        }
        return tags
    }
}
