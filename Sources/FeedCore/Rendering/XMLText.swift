import FoundationEssentials

/// Text made safe for XML 1.0 character data and attribute values: `&`, `<`, `>` (so `]]>` never
/// appears), `"` and CR (as `&#13;`) escaped; characters XML 1.0 cannot carry at all (C0 controls
/// but tab, newline and carriage return; U+FFFE and U+FFFF; surrogates, which a Swift string
/// cannot hold anyway) dropped, never passed raw, so any stored text gives a document that parses.
/// DEL and the C1 controls, which XML 1.0 allows but discourages (§2.2), are dropped too: a feed
/// reader would pass them to its display.
package enum XMLText {
    package static func escaped(_ text: String) -> String {
        // Built as UTF-8 bytes: appending scalar by scalar to a String costs several times more
        // (an export writes every title and text through here).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": bytes += Self.ampersand
            case "<": bytes += Self.lessThan
            case ">": bytes += Self.greaterThan
            case "\"": bytes += Self.quote
            // A raw CR is read back as a line feed (XML 1.0 §2.11): written as a reference, it stays.
            case "\r": bytes += Self.carriageReturn
            default:
                if scalar.isASCII {
                    if isAllowed(scalar) { bytes.append(UInt8(scalar.value)) }
                } else if isAllowed(scalar) {
                    bytes += scalar.utf8
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let ampersand = Array("&amp;".utf8)
    private static let lessThan = Array("&lt;".utf8)
    private static let greaterThan = Array("&gt;".utf8)
    private static let quote = Array("&quot;".utf8)
    private static let carriageReturn = Array("&#13;".utf8)

    /// XML 1.0's `Char` production, without DEL and the C1 controls.
    package static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0x7E, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
