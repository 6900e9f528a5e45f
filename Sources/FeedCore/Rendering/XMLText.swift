import FoundationEssentials

/// Text made safe for XML 1.0 character data and attribute values: `&`, `<`, `>` (so `]]>` never
/// appears) and, in attributes, `"` escaped; characters XML 1.0 cannot carry at all (C0 controls
/// but tab, newline and carriage return; U+FFFE and U+FFFF; surrogates, which a Swift string
/// cannot hold anyway) dropped, never passed raw, so any stored text gives a document that parses.
/// DEL and the C1 controls, which XML 1.0 allows but discourages (§2.2), are dropped too: a feed
/// reader would pass them to its display.
package enum XMLText {
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default:
                if isAllowed(scalar) { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    /// XML 1.0's `Char` production, without DEL and the C1 controls.
    package static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0x7E, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
