import FoundationEssentials
import Glibc

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
        let result = data.withUnsafeBytes { buffer -> Result<Document, JSONSyntaxError> in
            var reader = JSONReader(bytes: buffer, target: nil)
            return Result { () throws(JSONSyntaxError) in
                let (value, range) = try reader.document(projection)
                return Document(value: value, source: RawJSON(UnsafeRawBufferPointer(rebasing: buffer[range])))
            }
        }
        return try result.get()
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSON {
        try value(of: Data(text.utf8))
    }

    /// The value of `data` alone, without making its compact text; only the parts `projection`
    /// names are built (all of `data` is checked).
    public static func value(of data: Data, _ projection: JSONProjection = .whole) throws(JSONSyntaxError) -> JSON {
        let result = data.withUnsafeBytes { buffer -> Result<JSON, JSONSyntaxError> in
            var reader = JSONReader(bytes: buffer, target: nil)
            return Result { () throws(JSONSyntaxError) in try reader.document(projection).value }
        }
        return try result.get()
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

/// Why bytes are not JSON, and where (a byte offset into the body).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}

struct JSONReader {
    let bytes: UnsafeRawBufferPointer
    let target: JSONParser.ItemArray?
    var position = 0
    /// The spans of the elements of the target array (the last one read, as lookup takes the last).
    var captured: [ItemSpans.Span]?

    init(bytes: UnsafeRawBufferPointer, target: JSONParser.ItemArray?) {
        self.bytes = bytes
        self.target = target
    }

    /// The document's value and where it lies in the bytes (without a byte order mark or
    /// surrounding whitespace).
    mutating func document(_ projection: JSONProjection = .whole) throws(JSONSyntaxError) -> (value: JSON, range: Range<Int>) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace()
        guard position < bytes.count else { throw fail("no JSON value (the body is empty)") }
        let start = position
        let value = try self.value(depth: 1, projection, capturesArray: target == .topLevel, isTopLevel: true)
        let end = position
        skipWhitespace()
        guard position == bytes.count else { throw fail("unexpected text after the JSON value") }
        return (value, start..<end)
    }

    private func fail(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: position, reason: reason)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// The names of the first `limit` members of the top-level object, skipping their values.
    mutating func memberNames(limit: Int) throws(JSONSyntaxError) -> [String]? {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return nil }
        position += 1
        var names: [String] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { return names }
        while names.count < limit {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw fail("not valid JSON (expected a member name in quotes)")
            }
            names.append(try stringValue().string ?? "")
            try expectColon()
            try skip(depth: 2)
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ",") else { break }
            position += 1
        }
        return names
    }

    private mutating func value(
        depth: Int, _ projection: JSONProjection = .whole, capturesArray: Bool = false, isTopLevel: Bool = false
    ) throws(JSONSyntaxError) -> JSON {
        guard depth <= JSONParser.maximumDepth else {
            throw fail("nested deeper than \(JSONParser.maximumDepth) levels")
        }
        guard position < bytes.count else { throw fail("the JSON ends too early") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object(try object(depth: depth, projection, isTopLevel: isTopLevel))
        case UInt8(ascii: "["): return .array(try array(depth: depth, projection, captures: capturesArray))
        case UInt8(ascii: "\""): return try stringValue()
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("not valid JSON (unexpected character)")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail("not valid JSON (unexpected end)") }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
            throw fail("not valid JSON (unexpected character)")
        }
        position += count
    }

    private mutating func object(depth: Int, _ projection: JSONProjection, isTopLevel: Bool) throws(JSONSyntaxError) -> JSONObject {
        position += 1  // {
        var object = JSONObject()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return object
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw fail("not valid JSON (expected a member name in quotes)")
            }
            let key = try stringValue().string ?? ""
            try expectColon()
            if isTopLevel && target == .member(key) {
                // The item array: its elements become spans; anything else there is read only
                // for its kind (the page then has no items, and says what it found instead).
                let member = try value(depth: depth + 1, .kindOnly, capturesArray: true)
                // A later member of the name that is not an array is the one lookup finds: no items.
                if member.array == nil { captured = nil }
                object.append(key: key, value: member)
            } else if case .parts(let members, _) = projection {
                if let wanted = members[key] {
                    object.append(key: key, value: try value(depth: depth + 1, wanted))
                } else {
                    try skip(depth: depth + 1)
                }
            } else {
                object.append(key: key, value: try value(depth: depth + 1))
            }
            skipWhitespace()
            guard position < bytes.count else { throw fail("the JSON ends inside an object") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return object
            default: throw fail("not valid JSON (expected `,` or `}` in an object)")
            }
        }
    }

    /// Past the `:` after a member name, and the whitespace around it.
    private mutating func expectColon() throws(JSONSyntaxError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
            throw fail("not valid JSON (expected `:` after a member name)")
        }
        position += 1
        skipWhitespace()
    }

    /// An array's elements; a captured array's elements are checked and recorded as spans
    /// instead, and the array itself reads as empty.
    private mutating func array(depth: Int, _ projection: JSONProjection, captures: Bool) throws(JSONSyntaxError) -> [JSON] {
        position += 1  // [
        var elements: [JSON] = []
        var spans: [ItemSpans.Span] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            if captures { captured = spans }
            return elements
        }
        while true {
            skipWhitespace()
            let start = position
            if captures {
                try skip(depth: depth + 1)
                // Offsets fit: `parsePage` refuses bodies of 4 GiB or more.
                spans.append(ItemSpans.Span(start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: position)))
            } else if case .parts(_, let first) = projection {
                if elements.isEmpty, let first {
                    elements.append(try value(depth: depth + 1, first))
                } else {
                    try skip(depth: depth + 1)
                }
            } else {
                elements.append(try value(depth: depth + 1))
            }
            skipWhitespace()
            guard position < bytes.count else { throw fail("the JSON ends inside an array") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                if captures { captured = spans }
                return elements
            default: throw fail("not valid JSON (expected `,` or `]` in an array)")
            }
        }
    }

    /// Checks one value as `value` would, building nothing of it.
    private mutating func skip(depth: Int) throws(JSONSyntaxError) {
        guard depth <= JSONParser.maximumDepth else {
            throw fail("nested deeper than \(JSONParser.maximumDepth) levels")
        }
        guard position < bytes.count else { throw fail("the JSON ends too early") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            _ = try object(depth: depth, .kindOnly, isTopLevel: false)
        case UInt8(ascii: "["):
            _ = try array(depth: depth, .kindOnly, captures: false)
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try scanNumber()
        default: throw fail("not valid JSON (unexpected character)")
        }
    }

    /// Checks a string as `stringValue` would, decoding nothing; the cursor is on its quote.
    private mutating func skipString() throws(JSONSyntaxError) {
        position += 1
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    _ = try hexQuad()
                default:
                    position -= 1
                    throw fail("not valid JSON (an unknown escape in a string)")
                }
            case 0..<0x20:
                position -= 1
                throw fail("not valid JSON (a control character inside a string)")
            default:
                continue
            }
        }
        throw fail("the JSON ends inside a string")
    }

    private mutating func number() throws(JSONSyntaxError) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[try scanNumber()]), as: UTF8.self)
    }

    /// Where a number lies, checked against the JSON grammar; the cursor ends after it.
    private mutating func scanNumber() throws(JSONSyntaxError) -> Range<Int> {
        let start = position
        func digits(_ reader: inout JSONReader) -> Int {
            let first = reader.position
            while reader.position < reader.bytes.count, (0x30...0x39).contains(reader.bytes[reader.position]) {
                reader.position += 1
            }
            return reader.position - first
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, (0x30...0x39).contains(bytes[position]) else {
            throw fail("not valid JSON (a number needs digits)")
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            _ = digits(&self)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw fail("not valid JSON (a number needs digits after `.`)") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits(&self) > 0 else { throw fail("not valid JSON (a number needs digits in its exponent)") }
        }
        return start..<position
    }

    /// `bytes` as a string when they are valid UTF-8, else nil. What `String(validating:as:)`
    /// says, at a fraction of its cost: that initializer instantiates generic metadata at run time
    /// for every string.
    /// Decoding repairs a bad sequence with U+FFFD, so the text equals the bytes exactly when
    /// they were valid.
    /// Text that is all ASCII (most of a feed's) is valid as it is and is not compared again.
    private static func validUTF8(_ bytes: UnsafeRawBufferPointer) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        if isASCII(bytes) { return text }
        guard text.utf8.count == bytes.count else { return nil }
        var copy = text
        let same = copy.withUTF8 { decoded in
            guard let left = decoded.baseAddress, let right = bytes.baseAddress else { return decoded.isEmpty }
            return memcmp(left, right, bytes.count) == 0
        }
        return same ? text : nil
    }

    /// Whether every byte is below 0x80, eight at a time.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0, high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// A string's value; the cursor is on its opening quote.
    private mutating func stringValue() throws(JSONSyntaxError) -> JSON {
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                defer { position += 1 }
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                if let text = Self.validUTF8(raw) { return .string(text) }
                return .inexactString(.reading(replaced: Array(raw), marked: nil))
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw fail("not valid JSON (a control character inside a string)") }
            position += 1
        }
        var decoded = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        // The decoded bytes with lone surrogates as escape text, from the first lone surrogate on.
        var marked: [UInt8]?
        func append(_ byte: UInt8) {
            decoded.append(byte)
            marked?.append(byte)
            if byte == UInt8(ascii: "\\") { marked?.append(byte) }
        }
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                if marked == nil, let text = decoded.withUnsafeBytes(Self.validUTF8) { return .string(text) }
                return .inexactString(.reading(replaced: decoded, marked: marked))
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): append(escape)
                case UInt8(ascii: "b"): append(0x08)
                case UInt8(ascii: "f"): append(0x0C)
                case UInt8(ascii: "n"): append(0x0A)
                case UInt8(ascii: "r"): append(0x0D)
                case UInt8(ascii: "t"): append(0x09)
                case UInt8(ascii: "u"):
                    switch try unicodeEscape() {
                    case .scalar(let scalar):
                        decoded.append(contentsOf: String(Character(scalar)).utf8)
                        marked?.append(contentsOf: String(Character(scalar)).utf8)
                    case .loneSurrogate(let value):
                        if marked == nil { marked = InexactString.doublingBackslashes(decoded) }
                        decoded.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
                        marked?.append(contentsOf: "\\u\(String(value, radix: 16))".utf8)
                    }
                default:
                    position -= 1
                    throw fail("not valid JSON (an unknown escape in a string)")
                }
            case 0..<0x20:
                position -= 1
                throw fail("not valid JSON (a control character inside a string)")
            default:
                append(byte)
            }
        }
        throw fail("the JSON ends inside a string")
    }

    /// What a `\uXXXX` escape stands for.
    private enum UnicodeEscape {
        case scalar(Unicode.Scalar)
        /// Half of a surrogate pair without its other half (0xD800...0xDFFF).
        case loneSurrogate(UInt32)
    }

    /// The scalar of `\uXXXX` (the cursor is after the `u`), joining a surrogate pair.
    private mutating func unicodeEscape() throws(JSONSyntaxError) -> UnicodeEscape {
        let high = try hexQuad()
        guard (0xD800...0xDBFF).contains(high) else {
            return Unicode.Scalar(high).map(UnicodeEscape.scalar) ?? .loneSurrogate(high)
        }
        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
        else { return .loneSurrogate(high) }
        let mark = position
        position += 2
        let low = try hexQuad()
        guard (0xDC00...0xDFFF).contains(low) else {
            position = mark  // read the second escape on its own
            return .loneSurrogate(high)
        }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)).map(UnicodeEscape.scalar) ?? .loneSurrogate(high)
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("not valid JSON (a short \\u escape)") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw fail("not valid JSON (a bad \\u escape)")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}
