/// Renders entries in the three output formats. Renderers only format: they never touch the
/// network or the store.
public enum EntryRenderer {
    /// One entry as the contract's JSON object, compact, without a trailing newline.
    public static func json(_ entry: Entry) -> [UInt8] {
        var writer = JSONWriter()
        write(entry, to: &writer)
        return writer.bytes
    }

    static func write(_ entry: Entry, to writer: inout JSONWriter) {
        writer.object([
            ("feed", { $0.string(entry.feed) }),
            ("id", { $0.string(entry.id) }),
            ("title", { $0.string(entry.title) }),
            ("text", { $0.string(entry.text) }),
            ("author", { $0.string(entry.author) }),
            ("url", { $0.string(entry.url) }),
            ("published", { $0.string(entry.published) }),
            ("fetched_at", { $0.string(entry.fetchedAt) }),
            ("read", { $0.bool(entry.read) }),
            ("source", { $0.raw(entry.source.text) }),
        ])
    }

    /// A single entry for a person (`next`, `show`): a header line, a by-line, then the text.
    public static func plain(_ entry: Entry) -> String {
        var lines = ["[\(TerminalText.safe(entry.feed)) \(TerminalText.safe(entry.id))] "
            + TerminalText.safe(entry.title ?? "(untitled)")]
        var details: [String] = []
        if let author = entry.author { details.append("by " + TerminalText.safe(author)) }
        if let published = entry.published { details.append(published) }
        if let url = entry.url { details.append(TerminalText.safe(url)) }
        if !details.isEmpty { lines.append(details.joined(separator: " · ")) }
        if let text = entry.text, !text.isEmpty {
            lines.append("")
            lines.append(TerminalText.safe(text, multiline: true))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line per entry for `list` and `sync`: an unread mark, feed and id, the title (or the
    /// text's first line).
    public static func plainLine(_ entry: Entry) -> String {
        let headline = entry.title ?? entry.text?.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? "(untitled)"
        return "\(entry.read ? " " : "*") \(TerminalText.safe(entry.feed))/\(TerminalText.safe(entry.id))  "
            + TerminalText.safe(headline) + "\n"
    }
}

/// Streams a sequence of entries in one format: `add` per entry, then `end`. JSON gives one
/// array (one element per line), JSON Lines one object per line, plain one line per entry (or the
/// full entry when `detailed`).
public struct EntryListWriter: Sendable {
    private let format: OutputFormat
    private let sink: any OutputSink
    private let detailed: Bool
    private var count = 0

    public init(format: OutputFormat, sink: any OutputSink, detailed: Bool = false) {
        self.format = format
        self.sink = sink
        self.detailed = detailed
    }

    public mutating func add(_ entry: Entry) {
        switch format {
        case .plain:
            if detailed, count > 0 { sink.write("\n") }
            sink.write(detailed ? EntryRenderer.plain(entry) : EntryRenderer.plainLine(entry))
        case .json:
            sink.write(bytes: Array((count == 0 ? "[\n" : ",\n").utf8) + EntryRenderer.json(entry))
        case .jsonl:
            sink.write(bytes: EntryRenderer.json(entry) + [0x0A])
        }
        count += 1
    }

    /// Pushes out what has been added so far.
    public func flush() { sink.flush() }

    /// Closes the array for `--json` (an empty list is `[]`).
    public func end() {
        if format == .json { sink.write(count == 0 ? "[]\n" : "\n]\n") }
        sink.flush()
    }
}
