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
    /// The feeds exported, by name (their URLs resolve relative links, their kinds type text).
    package let feeds: [String: FeedRegistration]
    /// Whether every feed of the store is exported (none was named): the document is then the
    /// store's, and its id does not change as feeds are added.
    package let allFeeds: Bool
    /// When the exported feeds last changed (Atom's `updated`).
    package let updated: String
    /// The document's own address (`--self`): Atom's `rel="self"` link, JSON Feed's `feed_url`.
    package let selfURL: String?
    /// The source feeds' own titles, by feed name (`FeedRecord.title`); a feed without one is
    /// called by its name.
    package let sourceTitles: [String: String]

    /// With several feeds (or all, however many there are today), an item's id is `FEED/ID`,
    /// unique across them and unchanged when a feed is added.
    private var multiFeed: Bool { allFeeds || feeds.count != 1 }
    /// One feed's document is titled as its source is; several feeds' by the first three of
    /// their titles, by name, and how many more ("Daring Fireball, Hacker News and 3 more").
    private var title: String {
        let titles = feeds.keys.sorted().map(sourceTitle(of:))
        guard titles.count > 1 else { return titles.first ?? "feedcli: no feeds" }
        if titles.count <= 3 { return titles.dropLast().joined(separator: ", ") + " and " + (titles.last ?? "") }
        return titles.prefix(3).joined(separator: ", ") + " and \(titles.count - 3) more"
    }

    /// What a feed is called in the document: its source's title, else its name.
    private func sourceTitle(of feed: String) -> String { sourceTitles[feed] ?? feed }
    /// The document's id: the store's for all feeds, else the named feeds'.
    private var documentID: String { allFeeds ? Self.tag("all") : Self.tag(feeds.keys.sorted().joined(separator: ",")) }

    package func header() -> [UInt8] {
        switch format {
        case .jsonfeed:
            var writer = JSONWriter()
            writer.raw(#"{"version":"https://jsonfeed.org/version/1.1","title":"#)
            writer.string(title)
            if let selfURL {
                writer.raw(#","feed_url":"#)
                writer.string(selfURL)
            }
            writer.raw(#","description":"Entries stored by feedcli","items":["#)
            return writer.bytes
        case .atom:
            let link =
                selfURL.map { "<link rel=\"self\" type=\"application/atom+xml\" href=\"\(XMLText.escaped($0))\"/>\n" }
                ?? ""
            return Array(
                """
                <?xml version="1.0" encoding="utf-8"?>
                <feed xmlns="http://www.w3.org/2005/Atom">
                <id>\(documentID)</id>
                <title>\(XMLText.escaped(title))</title>
                <updated>\(updated)</updated>
                \(link)<generator>feedcli</generator>

                """.utf8)
        }
    }

    /// One entry; `first` for the first one written (JSON needs the commas between).
    package func entry(_ stored: Entry, first: Bool) -> [UInt8] {
        let entry = ExportedEntry(stored, feed: feeds[stored.feed])
        let id = multiFeed ? "\(stored.feed)/\(stored.id)" : stored.id
        switch format {
        case .jsonfeed:
            var writer = JSONWriter()
            if !first { writer.raw(",") }
            writer.raw("\n")
            var fields: [(String, (inout JSONWriter) -> Void)] = [("id", { $0.string(id) })]
            if let link = entry.link { fields.append(("url", { $0.string(link) })) }
            if entry.hasOwnTitle { fields.append(("title", { $0.string(entry.title) })) }
            // One of the two is required; HTML goes as HTML.
            fields.append((entry.isHTML ? "content_html" : "content_text", { $0.string(entry.text ?? "") }))
            if let published = stored.published { fields.append(("date_published", { $0.string(published) })) }
            if let author = stored.author {
                fields.append(
                    (
                        "authors",
                        { writer in
                            writer.raw("[")
                            writer.object([("name", { $0.string(author) })])
                            writer.raw("]")
                        }
                    ))
            }
            if multiFeed {
                fields.append(
                    (
                        "tags",
                        { writer in
                            writer.raw("[")
                            writer.string(stored.feed)
                            writer.raw("]")
                        }
                    ))
            }
            writer.object(fields)
            return writer.bytes
        case .atom:
            var xml = "<entry>\n<id>\(Self.tag(stored.feed + "/" + stored.id))</id>\n"
            xml += "<title>\(XMLText.escaped(entry.title))</title>\n"
            xml += "<updated>\(stored.published ?? stored.fetchedAt)</updated>\n"
            if let published = stored.published { xml += "<published>\(published)</published>\n" }
            if let link = entry.link { xml += "<link rel=\"alternate\" href=\"\(XMLText.escaped(link))\"/>\n" }
            // Every entry has an author (RFC 4287 §4.1.2, as the document has none of its own):
            // its own, else its source feed, by title.
            let author = stored.author ?? sourceTitle(of: stored.feed)
            xml += "<author><name>\(XMLText.escaped(author))</name></author>\n"
            if multiFeed {
                xml += "<category term=\"\(XMLText.escaped(stored.feed))\"/>\n"
                // Where the entry was copied from (§4.2.11): its source feed's id and title.
                xml += "<source><id>\(Self.tag(stored.feed))</id>"
                xml += "<title>\(XMLText.escaped(sourceTitle(of: stored.feed)))</title></source>\n"
            }
            // RFC 4287 §4.1.1.1: an entry without an alternate link must have content.
            if let text = entry.text {
                xml += "<content type=\"\(entry.isHTML ? "html" : "text")\">\(XMLText.escaped(text))</content>\n"
            } else if entry.link == nil {
                xml += "<content type=\"text\"></content>\n"
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
        "tag:feedcli,2026:"
            + name.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            .map { URLQuery.encode(String($0)) }.joined(separator: "/")
    }

    package init(
        format: ExportFormat, feeds: [FeedRegistration], allFeeds: Bool, updated: String, selfURL: String? = nil,
        sourceTitles: [String: String] = [:]
    ) {
        self.format = format
        self.sourceTitles = sourceTitles
        self.feeds = Dictionary(feeds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.allFeeds = allFeeds
        self.updated = updated
        self.selfURL = selfURL
    }
}
