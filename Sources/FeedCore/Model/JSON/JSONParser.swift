import FoundationEssentials

/// Reads server bytes as JSON (RFC 8259), strictly and without traps: any input ends in a value
/// or a `JSONSyntaxError`, never a crash, whatever its size, nesting or numbers.
///
/// Beyond `JSONDecoder`: numbers keep their exact text, objects keep duplicate members (lookup
/// takes the last, as jq does), and a leading UTF-8 byte order mark is skipped. A string with a
/// lone surrogate escape or bytes that are not UTF-8 is an `InexactString` (U+FFFD for text, an
/// escaped form for ids); nesting deeper than `maximumDepth` is refused rather than overflowing
/// the stack.
///
/// A page is read with `parsePage`: the elements of its item array are checked but not kept as
/// values; each is remembered as its span of the body (`ItemSpans`) and read again when needed,
/// so a page of a million small items costs eight bytes an item on top of its body rather than a
/// tree of a million objects.
public enum JSONParser {
    /// A parsed document: its value and its own raw text (compact).
    public struct Document: Sendable {
        public var value: JSON
        public var source: RawJSON
    }

    /// Parses `bytes` (a `Data`, or an array: a stream's item, read in place) as one document:
    /// its value (the parts `projection` names; all of `bytes` is checked) and its compact text
    /// (all of it).
    public static func parse(_ bytes: some ContiguousBytes, _ projection: JSONProjection = .whole)
        throws(JSONSyntaxError) -> Document
    {
        try inPlace(bytes) { buffer throws(JSONSyntaxError) in
            var reader = JSONReader(bytes: buffer, target: nil)
            let (value, range) = try reader.document(projection)
            return Document(value: value, source: RawJSON(UnsafeRawBufferPointer(rebasing: buffer[range])))
        }
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSON {
        try value(of: Data(text.utf8))
    }

    /// The value of `bytes` alone, without making its compact text; only the parts `projection`
    /// names are built (all of `bytes` is checked).
    public static func value(of bytes: some ContiguousBytes, _ projection: JSONProjection = .whole)
        throws(JSONSyntaxError) -> JSON
    {
        try inPlace(bytes) { buffer throws(JSONSyntaxError) in
            var reader = JSONReader(bytes: buffer, target: nil)
            return try reader.document(projection).value
        }
    }

    /// `read` of `bytes` where they lie: never copied (into a `Data`, an allocation and a copy an
    /// item of a stream), the error's type kept.
    private static func inPlace<T>(
        _ bytes: some ContiguousBytes, _ read: (UnsafeRawBufferPointer) throws(JSONSyntaxError) -> T
    ) throws(JSONSyntaxError) -> T {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONSyntaxError) in try read(buffer) } }.get()
    }

    /// The names of the first `limit` members of the object `data` is (nil when it is not an
    /// object or not JSON), building none of their values: for messages about a document's shape.
    public static func memberNames(of data: Data, limit: Int) -> [String]? {
        data.withUnsafeBytes { buffer in
            var reader = JSONReader(bytes: buffer, target: nil)
            return try? reader.memberNames(limit: limit)
        }
    }
}
