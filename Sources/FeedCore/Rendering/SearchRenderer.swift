import FeedModel

/// `search`'s output: one line a match (plain), or `list`'s JSON object of the entry with its
/// `"excerpt"` and, ranked, its `"rank"`.
public enum SearchRenderer {
    /// The bytes of the `number`th (0-based) match, separators included.
    package static func element(
        _ entry: Entry, rank: Double?, query: SearchQuery, number: Int, format: OutputFormat,
        marks: SearchExcerpt.Marks,
        width: Int?, into bytes: inout [UInt8]
    ) {
        switch format {
        case .plain:
            let date = (entry.published ?? entry.fetchedAt).prefix(10)
            let headline = entry.title.map { TerminalText.safe($0) } ?? "(untitled)"
            let head = "\(entry.handle) \(TerminalText.safe(entry.feed)) \(date) \(headline)"
            let excerpt = SearchExcerpt.of(entry, query: query, marks: marks)
            // The excerpt's marks are not text: the head alone is fitted to the width.
            let line = excerpt.isEmpty ? EntryRenderer.fitting(head, width: width) : head + ": " + excerpt
            bytes += (line + "\n").utf8
        case .json, .jsonl:
            if format == .json { bytes += (number == 0 ? "[\n" : ",\n").utf8 }
            var object: [UInt8] = []
            EntryRenderer.json(entry, into: &object)
            object.removeLast()  // the object's `}`
            var writer = JSONWriter(capacity: 0)
            swap(&writer.bytes, &object)
            writer.raw(#","excerpt":"#)
            writer.string(SearchExcerpt.of(entry, query: query, marks: .none))
            if let rank {
                writer.raw(#","rank":"#)
                writer.raw(rank.isFinite ? String(rank) : "0")
            }
            writer.raw("}")
            bytes += writer.bytes
            if format == .jsonl { bytes.append(0x0A) }
        }
    }

    /// What ends the output of `count` matches (`list`'s).
    package static func end(count: Int, format: OutputFormat) -> [UInt8] {
        EntryRenderer.end(count: count, format: format, layout: .list)
    }
}
