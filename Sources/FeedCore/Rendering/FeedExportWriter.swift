import FeedModel
import FoundationEssentials

/// The document `feedcli export` writes: stored entries, newest first, as one JSON Feed 1.1 or
/// Atom 1.0 (RFC 4287) document, written entry by entry (the command streams it, so memory stays
/// flat however many entries there are).
public enum ExportFormat: String, Sendable, CaseIterable {
    case jsonfeed
    case atom
}

package struct FeedExportWriter {
    package let format: ExportFormat
    /// The feeds exported, for the title and the document's id.
    package let feeds: [String]
    /// When the exported feeds last changed (Atom's `updated`).
    package let updated: String

    /// With several feeds, an item's id is `FEED/ID`, unique across them.
    private var multiFeed: Bool { feeds.count != 1 }
    private var title: String { feeds.count == 1 ? feeds[0] : "feedcli" }

    package func header() -> [UInt8] {
        switch format {
        case .jsonfeed:
            var writer = JSONWriter()
            writer.raw(#"{"version":"https://jsonfeed.org/version/1.1","title":"#)
            writer.string(title)
            writer.raw(#","description":"Entries stored by feedcli","items":["#)
            return writer.bytes
        case .atom:
            return Array("""
                <?xml version="1.0" encoding="utf-8"?>
                <feed xmlns="http://www.w3.org/2005/Atom">
                <id>\(Self.tag(feeds.sorted().joined(separator: ",")))</id>
                <title>\(XMLText.escaped(title))</title>
                <updated>\(updated)</updated>
                <author><name>feedcli</name></author>
                <generator>feedcli</generator>

                """.utf8)
        }
    }

    /// One entry; `first` for the first one written (JSON needs the commas between).
    package func entry(_ entry: Entry, first: Bool) -> [UInt8] {
        let id = multiFeed ? "\(entry.feed)/\(entry.id)" : entry.id
        let isHTML = entry.text.map(HTMLText.looksLikeHTML) ?? false
        switch format {
        case .jsonfeed:
            var writer = JSONWriter()
            if !first { writer.raw(",") }
            writer.raw("\n")
            var fields: [(String, (inout JSONWriter) -> Void)] = [("id", { $0.string(id) })]
            if let url = entry.url { fields.append(("url", { $0.string(url) })) }
            if let title = entry.title { fields.append(("title", { $0.string(title) })) }
            // One of the two is required; HTML goes as HTML.
            fields.append((isHTML ? "content_html" : "content_text", { $0.string(entry.text ?? "") }))
            if let published = entry.published { fields.append(("date_published", { $0.string(published) })) }
            if let author = entry.author {
                fields.append(("authors", { writer in
                    writer.raw("[")
                    writer.object([("name", { $0.string(author) })])
                    writer.raw("]")
                }))
            }
            if multiFeed { fields.append(("tags", { writer in writer.raw("["); writer.string(entry.feed); writer.raw("]") })) }
            writer.object(fields)
            return writer.bytes
        case .atom:
            // Atom requires a title: without one, the text's beginning (as text, not markup).
            let plain = entry.text.map { isHTML ? HTMLText.render($0).text : $0 } ?? entry.id
            let title = entry.title ?? String(plain.prefix(80))
            var xml = "<entry>\n<id>\(Self.tag(entry.feed + "/" + entry.id))</id>\n"
            xml += "<title>\(XMLText.escaped(title))</title>\n"
            xml += "<updated>\(entry.published ?? entry.fetchedAt)</updated>\n"
            if let published = entry.published { xml += "<published>\(published)</published>\n" }
            if let url = entry.url { xml += "<link rel=\"alternate\" href=\"\(XMLText.escaped(url))\"/>\n" }
            if let author = entry.author { xml += "<author><name>\(XMLText.escaped(author))</name></author>\n" }
            if multiFeed { xml += "<category term=\"\(XMLText.escaped(entry.feed))\"/>\n" }
            if let text = entry.text {
                xml += "<content type=\"\(isHTML ? "html" : "text")\">\(XMLText.escaped(text))</content>\n"
            }
            return Array((xml + "</entry>\n").utf8)
        }
    }

    package func footer() -> [UInt8] {
        switch format {
        case .jsonfeed: Array("\n]}\n".utf8)
        case .atom: Array("</feed>\n".utf8)
        }
    }

    /// A tag URI (RFC 4151) that never changes for what it names: `tag:feedcli,2026:` and the
    /// name percent-encoded (feed names need none; ids may hold anything).
    package static func tag(_ name: String) -> String {
        "tag:feedcli,2026:" + name.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            .map { URLQuery.encode(String($0)) }.joined(separator: "/")
    }

    package init(format: ExportFormat, feeds: [String], updated: String) {
        self.format = format
        self.feeds = feeds
        self.updated = updated
    }
}
