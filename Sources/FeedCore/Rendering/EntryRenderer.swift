import FeedModel
import FoundationEssentials
import Glibc

/// Renders entries in the three output formats. Renderers only format: they never touch the
/// network or the store.
public enum EntryRenderer {
    /// One entry as the contract's JSON object, compact, without a trailing newline.
    public static func json(_ entry: Entry) -> [UInt8] {
        var bytes: [UInt8] = []
        json(entry, into: &bytes)
        return bytes
    }

    /// Appends the entry's JSON object to `bytes`.
    public static func json(_ entry: Entry, into bytes: inout [UInt8]) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &bytes)
        write(entry, to: &writer)
        swap(&writer.bytes, &bytes)
    }

    /// The contract's keys in their fixed order, written straight into the buffer (no
    /// intermediate values: listing 10^6 entries is rendering-bound).
    package static func write(_ entry: Entry, to writer: inout JSONWriter) {
        // The keys and the values as they are (escapes may add a little): one allocation for
        // a huge entry, not a doubling.
        func size(_ value: String?) -> Int { value?.utf8.count ?? 4 }
        writer.reserve(
            160 + size(entry.feed) + size(entry.id) + size(entry.title) + size(entry.text) + size(entry.author)
                + size(entry.url) + size(entry.source.text))
        writer.raw(#"{"feed":"#)
        writer.string(entry.feed)
        writer.raw(#","id":"#)
        writer.string(entry.id)
        writer.raw(#","title":"#)
        writer.string(entry.title)
        writer.raw(#","text":"#)
        writer.string(entry.text)
        writer.raw(#","author":"#)
        writer.string(entry.author)
        writer.raw(#","url":"#)
        writer.string(entry.url)
        writer.raw(#","published":"#)
        writer.string(entry.published)
        writer.raw(#","fetched_at":"#)
        writer.string(entry.fetchedAt)
        writer.raw(#","read":"#)
        writer.bool(entry.read)
        writer.raw(#","source":"#)
        writer.raw(LoneSurrogates.replaced(in: entry.source.text))
        writer.raw("}")
    }

    /// A single entry for a person (`next`, `show`): a header line, a by-line, then the text
    /// (HTML shown as text, links listed under it), wrapped to `width` when one is given.
    public static func plain(_ entry: Entry, width: Int? = nil) -> String {
        var lines = [
            "[\(entry.handle) \(TerminalText.safe(entry.feed))] " + TerminalText.safe(entry.title ?? "(untitled)")
        ]
        var details: [String] = []
        if let author = entry.author { details.append("by " + TerminalText.safe(author)) }
        if let published = entry.published { details.append(published) }
        if let url = entry.url { details.append(TerminalText.safe(url)) }
        if !details.isEmpty { lines.append(details.joined(separator: " · ")) }
        if let text = entry.text, !text.isEmpty {
            var body = text
            var links: [String] = []
            if HTMLText.looksLikeHTML(text) {
                let rendered = HTMLText.render(text)
                body = rendered.text
                links = rendered.links
            }
            lines.append("")
            lines.append(TerminalText.safe(body, multiline: true))
            if let width { lines = [TextWrapping.wrap(lines.joined(separator: "\n"), width: width)] }
            if !links.isEmpty {
                lines.append("")
                lines += links.enumerated().map { "[\($0.offset + 1)] " + TerminalText.safe($0.element) }
            }
            return lines.joined(separator: "\n") + "\n"
        }
        if let width { return TextWrapping.wrap(lines.joined(separator: "\n"), width: width) + "\n" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line per entry for `list` and `sync`: an unread mark, feed and id, the title (or the
    /// text's first line, HTML shown as text, as `show` shows it); on a terminal (`width`), cut
    /// to fit with `…`.
    public static func plainLine(_ entry: Entry, width: Int? = nil) -> String {
        let text = entry.text.map { HTMLText.looksLikeHTML($0) ? HTMLText.render($0).text : $0 }
        let firstLine = text?.split(maxSplits: 1, whereSeparator: \.isNewline).first.map(String.init)
        let headline = entry.title ?? firstLine ?? "(untitled)"
        let line =
            "\(entry.read ? " " : "*") \(entry.handle) \(TerminalText.safe(entry.feed)): " + TerminalText.safe(headline)
        return fitting(line, width: width) + "\n"
    }

    /// `line` cut to `width` characters, its last one `…`, when it is longer (a terminal wraps
    /// what does not fit, and a list reads best one entry a line).
    package static func fitting(_ line: String, width: Int?) -> String {
        guard let width, width > 1 else { return line }
        return DisplayWidth.fitting(line, columns: width)
    }

    /// How entries are laid out one after another.
    public enum Layout: Sendable {
        /// Each entry whole (`next`, `show`): plain text separated by blank lines, or one JSON
        /// object per line.
        case detailed
        /// A list (`sync`, `list`): one line per entry, one JSON array, or JSON Lines.
        case list
    }

    /// The bytes of the `number`th (0-based) entry of a sequence, separators included.
    public static func element(
        _ entry: Entry, number: Int, format: OutputFormat, layout: Layout, width: Int? = nil, into bytes: inout [UInt8]
    ) {
        switch (format, layout) {
        case (.plain, .detailed):
            if number > 0 { bytes.append(0x0A) }
            bytes += plain(entry, width: width).utf8
        case (.plain, .list):
            bytes += plainLine(entry, width: width).utf8
        case (.json, .list):
            bytes += (number == 0 ? "[\n" : ",\n").utf8
            json(entry, into: &bytes)
        case (.json, .detailed), (.jsonl, _):
            json(entry, into: &bytes)
            bytes.append(0x0A)
        }
    }

    /// What ends a sequence of `count` entries: the JSON array's close (`[]` when empty).
    public static func end(count: Int, format: OutputFormat, layout: Layout) -> [UInt8] {
        guard format == .json, layout == .list else { return [] }
        return Array((count == 0 ? "[]\n" : "\n]\n").utf8)
    }
}
