import FoundationEssentials

/// What the parser knows of pages: an item array kept as spans of the body, and a bound on a
/// page's values counted before anything is built.
extension JSONParser {
    /// Where a page keeps its items, so their raw text can be captured while parsing.
    public enum ItemArray: Sendable, Equatable {
        /// The document is the array (`linked` pages).
        case topLevel
        /// The array is this member of the top-level object (`data`, `items`); the last member of
        /// that name wins, as for every lookup.
        case member(String)
    }

    /// A parsed page: the document's value with its item array left empty, and that array's
    /// elements as spans of the body (nil when the document has no such array).
    public struct PageDocument: Sendable {
        public var value: JSON
        public var items: ItemSpans?
    }

    public static let maximumDepth = 512

    /// At most how many values `data` holds, if it is JSON: one more than its commas and
    /// opening brackets outside strings (every value but the first of a container follows a
    /// comma). Counted without parsing, so a reader that must hold every value (jq) can refuse
    /// a page before anything is built.
    public static func valueCountBound(of data: Data) -> Int {
        data.withUnsafeBytes { bytes in
            var count = 1
            var tracker = JSONStringTracker()
            for byte in bytes where tracker.isStructural(byte) {
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { count += 1 }
            }
            return count
        }
    }

    /// Parses a page whose items are the array at `items`, keeping them as spans of `data`; of
    /// the rest, only what `rest` names is built.
    public static func parsePage(
        _ data: Data, items target: ItemArray, rest: JSONProjection = .whole
    ) throws(JSONSyntaxError) -> PageDocument {
        // Spans are 32-bit offsets: a body of 4 GiB or more (only a raised --max-size allows
        // one) is refused rather than misread.
        guard data.count <= Int(UInt32.max) else {
            throw JSONSyntaxError(offset: 0, reason: "a page of 4 GiB or more cannot be read")
        }
        let result = data.withUnsafeBytes { buffer -> Result<PageDocument, JSONSyntaxError> in
            var reader = JSONReader(bytes: buffer, target: target)
            return Result { () throws(JSONSyntaxError) in
                let value = try reader.document(rest).value
                return PageDocument(value: value, items: reader.captured.map { ItemSpans(data: data, spans: $0) })
            }
        }
        return try result.get()
    }
}
