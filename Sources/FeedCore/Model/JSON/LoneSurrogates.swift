import FoundationEssentials

/// Lone surrogate escapes in JSON text (`"\ud800"` without its `\udc00`…`\udfff` partner, or a
/// low half alone): RFC 8259 calls them legal JSON with unpredictable behaviour, and jq 1.6,
/// Debian's jq included, refuses the whole text that holds one ("Invalid \uXXXX\uXXXX surrogate
/// pair escape"). feedcli keeps the server's exact text in its store; what it hands to jq and
/// what it writes as JSON output has each lone surrogate escape replaced by `\ufffd`, so every
/// JSON reader reads every line.
package enum LoneSurrogates {
    /// `text` (one valid JSON text) with every lone surrogate escape written as `\ufffd`; `text`
    /// itself, untouched, when it has none (one scan for a backslash).
    package static func replaced(in text: String) -> String {
        var text = text
        guard let positions = text.withUTF8({ lonePositions(in: $0) }), !positions.isEmpty else { return text }
        var bytes = Array(text.utf8)
        for position in positions {
            // `\uXXXX` becomes `\ufffd`: the same six bytes.
            bytes.replaceSubrange(position + 2..<position + 6, with: Array("fffd".utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The offsets of the backslashes of lone surrogate escapes; nil when `bytes` has no
    /// backslash at all.
    private static func lonePositions(in bytes: UnsafeBufferPointer<UInt8>) -> [Int]? {
        guard bytes.contains(UInt8(ascii: "\\")) else { return nil }
        var positions: [Int] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                index += 1
                continue
            }
            guard bytes[index + 1] == UInt8(ascii: "u"), let unit = codeUnit(bytes, at: index) else {
                index += 2  // `\\`, `\"`, `\n`: the escaped byte is never the start of another escape
                continue
            }
            switch unit {
            case 0xD800...0xDBFF:
                if let low = codeUnit(bytes, at: index + 6), (0xDC00...0xDFFF).contains(low) {
                    index += 12
                } else {
                    positions.append(index)
                    index += 6
                }
            case 0xDC00...0xDFFF:
                positions.append(index)
                index += 6
            default:
                index += 6
            }
        }
        return positions
    }

    /// The code unit of the `\uXXXX` escape whose backslash is at `index`, if one is there.
    private static func codeUnit(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16? {
        guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
            return nil
        }
        var unit: UInt16 = 0
        for byte in bytes[index + 2..<index + 6] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }
}
