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

    /// Parses `data` as one document: its value (the parts `projection` names; all of `data`
    /// is checked) and its compact text (all of it).
    public static func parse(_ data: Data, _ projection: JSONProjection = .whole) throws(JSONSyntaxError) -> Document {
        try data.withUnsafeBytes { buffer in Result { () throws(JSONSyntaxError) in try parse(buffer, projection) } }
            .get()
    }

    /// `parse(_:_:)` of bytes an array holds (a stream's item: read in place, not copied into a
    /// `Data`, an allocation and a copy an item).
    public static func parse(bytes: [UInt8], _ projection: JSONProjection = .whole) throws(JSONSyntaxError)
        -> Document
    {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONSyntaxError) in try parse(buffer, projection) } }
            .get()
    }

    private static func parse(_ buffer: UnsafeRawBufferPointer, _ projection: JSONProjection) throws(JSONSyntaxError)
        -> Document
    {
        var reader = JSONReader(bytes: buffer, target: nil)
        let (value, range) = try reader.document(projection)
        return Document(value: value, source: RawJSON(UnsafeRawBufferPointer(rebasing: buffer[range])))
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSON {
        try value(of: Data(text.utf8))
    }

    /// The value of `data` alone, without making its compact text; only the parts `projection`
    /// names are built (all of `data` is checked).
    public static func value(of data: Data, _ projection: JSONProjection = .whole) throws(JSONSyntaxError) -> JSON {
        try data.withUnsafeBytes { buffer in Result { () throws(JSONSyntaxError) in try value(buffer, projection) } }
            .get()
    }

    /// `value(of:_:)` of bytes an array holds, read in place.
    public static func value(ofBytes bytes: [UInt8], _ projection: JSONProjection = .whole) throws(JSONSyntaxError)
        -> JSON
    {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONSyntaxError) in try value(buffer, projection) } }
            .get()
    }

    private static func value(_ buffer: UnsafeRawBufferPointer, _ projection: JSONProjection) throws(JSONSyntaxError)
        -> JSON
    {
        var reader = JSONReader(bytes: buffer, target: nil)
        return try reader.document(projection).value
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
