import FoundationEssentials

/// Markup a feed URL may answer with instead of JSON: an RSS or Atom document (which no kind
/// reads), or an HTML page (which may name its JSON Feed). Only the first 64 KiB are looked at.
package enum FeedMarkup: Equatable {
    case syndication
    case page(String)

    package static func of(_ body: Data) -> FeedMarkup? {
        let head = String(decoding: body.prefix(65_536), as: UTF8.self)
        let start = head.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        guard start.first == "<" else { return nil }
        let lowered = head.lowercased()
        if lowered.contains("<rss") || lowered.contains("<rdf:rdf")
            || lowered.contains("<feed") && lowered.contains("http://www.w3.org/2005/atom")
        {
            return .syndication
        }
        if lowered.contains("<html") || lowered.contains("<!doctype html") { return .page(head) }
        return nil
    }

    /// The `href` of the page's first `<link>` with `rel` alternate and the JSON Feed type.
    package static func jsonFeedLink(in html: String) -> String? {
        guard let tags = try? Regex("<link\\b[^>]*>").ignoresCase(),
            let attribute = try? Regex("([A-Za-z-]+)\\s*=\\s*(\"[^\"]*\"|'[^']*'|[^\\s>]+)")
        else { return nil }
        for tag in html.matches(of: tags) {
            var attributes: [String: String] = [:]
            for match in html[tag.range].matches(of: attribute) {
                guard let name = match.output[1].substring, let raw = match.output[2].substring else { continue }
                let value = raw.first == "\"" || raw.first == "'" ? raw.dropFirst().dropLast() : raw
                attributes[name.lowercased()] = String(value).replacing("&amp;", with: "&")
            }
            guard attributes["rel"]?.lowercased().split(separator: " ").contains("alternate") == true,
                attributes["type"]?.lowercased() == "application/feed+json",
                let href = attributes["href"], !href.isEmpty
            else { continue }
            return href
        }
        return nil
    }
}
