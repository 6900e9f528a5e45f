import FoundationEssentials

/// The cursor of one JSON document: values, objects, arrays, numbers and what is skipped, over
/// the document's bytes (`JSONParser` is its front; strings are `JSONReader+Strings.swift`).
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
    mutating func document(_ projection: JSONProjection = .whole) throws(JSONSyntaxError) -> (
        value: JSON, range: Range<Int>
    ) {
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

    func fail(_ reason: String) -> JSONSyntaxError {
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
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
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

    private mutating func object(depth: Int, _ projection: JSONProjection, isTopLevel: Bool) throws(JSONSyntaxError)
        -> JSONObject
    {
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
    private mutating func array(depth: Int, _ projection: JSONProjection, captures: Bool) throws(JSONSyntaxError)
        -> [JSON]
    {
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
                spans.append(
                    ItemSpans.Span(start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: position)))
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
}
