import FoundationEssentials

/// Text from feeds made safe for a terminal: control characters (C0 except newline and tab in
/// multi-line text, DEL, C1) are shown escaped, so a feed cannot move the cursor, change colours
/// or retitle the window; so are the bidirectional overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069), which can make a title read as something else ("Trojan Source").
public enum TerminalText {
    public static func safe(_ text: String, multiline: Bool = false) -> String {
        // Nearly all text needs no escape: one pass over the bytes finds out, and the text is
        // returned as it is (every printed field of every entry comes through here).
        guard needsEscaping(text, multiline: multiline) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where multiline, 0x09 where multiline:
                result.unicodeScalars.append(scalar)
            case 0x0A: result += "\\n"
            case 0x09: result += "\\t"
            case 0x00..<0x20, 0x7F:
                result += "\\x" + hex(scalar.value, width: 2)
            case 0x80..<0xA0, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u" + hex(scalar.value, width: 4)
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `text` holds a scalar that `safe` escapes. C0 and DEL are single UTF-8 bytes;
    /// a C1 control (U+0080…U+009F) is the byte pair `C2 80`…`C2 9F`; the bidirectional
    /// controls are `E2 80 AA`…`E2 80 AE` and `E2 81 A6`…`E2 81 A9`.
    private static func needsEscaping(_ text: String, multiline: Bool) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case 0x0A, 0x09: if !multiline { return true }
            case 0x00..<0x20, 0x7F: return true
            case 0x80..<0xA0 where previous == 0xC2: return true
            case 0xAA...0xAE where previous == 0x80 && beforePrevious == 0xE2: return true
            case 0xA6...0xA9 where previous == 0x81 && beforePrevious == 0xE2: return true
            default: break
            }
            beforePrevious = previous
            previous = byte
        }
        return false
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
