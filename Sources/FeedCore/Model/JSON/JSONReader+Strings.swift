import FoundationEssentials

/// Strings: the fast path without escapes, escapes, `\\uXXXX` and surrogate pairs, lone
/// surrogates kept as `InexactString`.
extension JSONReader {
    /// A string's value; the cursor is on its opening quote.
    mutating func stringValue() throws(JSONSyntaxError) -> JSON {
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                defer { position += 1 }
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                if let text = UTF8Check.valid(raw) { return .string(text) }
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
                if marked == nil, let text = decoded.withUnsafeBytes(UTF8Check.valid) { return .string(text) }
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
        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
            bytes[position + 1] == UInt8(ascii: "u")
        else { return .loneSurrogate(high) }
        let mark = position
        position += 2
        let low = try hexQuad()
        guard (0xDC00...0xDFFF).contains(low) else {
            position = mark  // read the second escape on its own
            return .loneSurrogate(high)
        }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)).map(UnicodeEscape.scalar)
            ?? .loneSurrogate(high)
    }

    mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
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
