import FeedModel
import FoundationEssentials

/// Entries with a huge title, text or source are stored in parts: the row with the first part
/// of each, then the rest appended part by part, in the same transaction.
///
/// libpq copies a statement with its parameters into an output buffer that it grows to fit and
/// never shrinks: a huge entry sent whole left a buffer of twice its size held by the
/// connection for the rest of a follow, beside every later entry (`--max-size` plus a bounded backlog is the whole of a
/// stream's memory). Parts keep that buffer near `partSize`.
extension PostgresStore {
    /// The largest part of a value sent in one statement.
    static let partSize = 1 << 20

    /// Whether `entry` has a value sent in parts.
    static func hasLargeValues(_ entry: Entry) -> Bool {
        largeColumns(of: entry).contains { $0.value.utf8.count > partSize }
    }

    /// The columns that may be large, with their values and how each is sent.
    private static func largeColumns(of entry: Entry) -> [(column: String, value: String, asBytes: Bool)] {
        [
            entry.title.map { ("title", $0, true) }, entry.text.map { ("text", $0, true) },
            ("source", entry.source.text, false),
        ].compactMap { $0 }
    }

    /// `entry` with each large value cut to its first part, and the rest of each, to append.
    static func firstParts(of entry: Entry) -> (entry: Entry, rest: [LaterParts]) {
        var first = entry
        var rest: [LaterParts] = []
        for (column, value, asBytes) in largeColumns(of: entry) where value.utf8.count > partSize {
            let ranges = partRanges(of: value, size: partSize)
            guard let head = ranges.first else { continue }
            let part = String(Substring(value.unicodeScalars[head]))
            switch column {
            case "title": first.title = part
            case "text": first.text = part
            default: first.source = RawJSON(compactText: part)
            }
            rest.append(LaterParts(column: column, value: value, ranges: Array(ranges.dropFirst()), asBytes: asBytes))
        }
        return (first, rest)
    }

    /// The parts of a value after its first, appended to its row one statement each.
    struct LaterParts {
        let column: String
        let value: String
        let ranges: [Range<String.Index>]
        let asBytes: Bool

        /// Appends each part to the row of entry `seq` of `feed`.
        func append(_ db: PostgresConnection, feed: String, seq: Int64) throws(FeedFailure) {
            let sql = "UPDATE entry SET \(column) = \(column) || $1 WHERE feed = $2 AND seq = $3::bigint"
            for range in ranges {
                let part = String(Substring(value.unicodeScalars[range]))
                try db.execute(sql, [asBytes ? .bytes(part) : .text(part), .text(feed), PostgresValue(seq)])
            }
        }
    }

    /// The ranges of `text` in parts of at most `size` bytes (at least 4), cut between scalars:
    /// each part is valid UTF-8 by itself, as a text parameter must be.
    static func partRanges(of text: String, size: Int) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var start = text.startIndex
        while start < text.endIndex {
            var end = text.utf8.index(start, offsetBy: max(4, size), limitedBy: text.endIndex) ?? text.endIndex
            while end < text.endIndex, end.samePosition(in: text.unicodeScalars) == nil {
                end = text.utf8.index(before: end)
            }
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}
