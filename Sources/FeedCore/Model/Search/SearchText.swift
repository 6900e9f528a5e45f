/// The words of a text as search sees them, the same for the index and for a query, so that
/// both engines (and the in-memory scan) match alike: case folded, accents removed (`café` is
/// `cafe`, `Ærø` is `aero`), split at anything that is not a letter or a digit, and every
/// character of a script written without spaces between words (Chinese, Japanese, Thai, Lao,
/// Khmer, Myanmar) and every emoji a word of its own, so that a query's run of them is a phrase
/// that matches anywhere inside a longer run (`東京` finds `東京で`). Markup is not text:
/// a tag (`<a href=…>`) and an entity (`&amp;`) separate words and are not words.
package enum SearchText {
    /// One word: its folded form and where it stands in the text (for excerpts).
    package struct Word: Equatable, Sendable {
        package var folded: String
        package var range: Range<String.Index>
    }

    /// The words of `text`, in order.
    package static func words(in text: String) -> [Word] {
        var words: [Word] = []
        // The word being read, as UTF-8: an ASCII letter is one byte appended (most of what is
        // indexed), not a string of its own.
        var current: [UInt8] = []
        current.reserveCapacity(64)
        var start: String.Index?
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        func end(at position: String.Index) {
            if let begun = start, !current.isEmpty {
                words.append(Word(folded: String(decoding: current, as: UTF8.self), range: begun..<position))
            }
            current.removeAll(keepingCapacity: true)
            start = nil
        }
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let value = scalar.value
            if value < 0x80 {
                let byte = UInt8(value)
                switch byte {
                case 0x61...0x7A, 0x30...0x39:
                    if start == nil { start = index }
                    current.append(byte)
                    index = scalars.index(after: index)
                    continue
                case 0x41...0x5A:
                    if start == nil { start = index }
                    current.append(byte + 0x20)
                    index = scalars.index(after: index)
                    continue
                case UInt8(ascii: "<"), UInt8(ascii: "&"):
                    if let after = markupEnd(scalars, at: index) {
                        end(at: index)
                        index = after
                        continue
                    }
                default:
                    break
                }
            }
            let next = scalars.index(after: index)
            switch kind(of: scalar) {
            case .separator:
                end(at: index)
            case .mark:
                break  // a combining accent: dropped, the word goes on
            case .alone:
                end(at: index)
                words.append(Word(folded: fold(scalar), range: index..<next))
            case .letter:
                if start == nil { start = index }
                current.append(contentsOf: fold(scalar).utf8)
            }
            index = next
        }
        end(at: scalars.endIndex)
        return words
    }

    /// The folded words of `text` alone.
    package static func folded(_ text: String) -> [String] {
        words(in: text).map(\.folded)
    }

    private enum Kind {
        case letter, alone, mark, separator
    }

    private static func kind(of scalar: Unicode.Scalar) -> Kind {
        let value = scalar.value
        if value < 0x80 {
            let byte = UInt8(value)
            let isWord = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            return isWord ? .letter : .separator
        }
        let properties = scalar.properties
        if properties.generalCategory == .nonspacingMark || properties.generalCategory == .enclosingMark {
            return .mark
        }
        if isSpaceless(value) { return .alone }
        if properties.isAlphabetic || properties.numericType != nil { return .letter }
        if properties.isEmojiPresentation || (properties.isEmoji && value > 0x2000) { return .alone }
        return .separator
    }

    /// Scripts written without spaces between words.
    private static func isSpaceless(_ value: UInt32) -> Bool {
        switch value {
        case 0x0E00...0x0EFF,  // Thai, Lao
            0x1000...0x109F,  // Myanmar
            0x1780...0x17FF,  // Khmer
            0x3040...0x30FF, 0x31F0...0x31FF,  // Hiragana, Katakana
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF,  // Han
            0xFF66...0xFF9F:  // halfwidth Katakana
            return true
        default:
            return false
        }
    }

    /// `scalar` lowercased, then its accent removed: folding a folded word changes nothing
    /// (`Ƒ` lowercases to `ƒ`, which folds to `f`; a word folded once and a query's word folded
    /// again must be the same).
    private static func fold(_ scalar: Unicode.Scalar) -> String {
        if scalar.value < 0x80 {
            guard (0x41...0x5A).contains(scalar.value) else { return String(scalar) }
            return String(Unicode.Scalar(UInt8(scalar.value + 0x20)))
        }
        if let folded = latin[scalar.value] { return folded }
        let lower = scalar.properties.lowercaseMapping
        guard lower.unicodeScalars.contains(where: { latin[$0.value] != nil }) else { return lower }
        return lower.unicodeScalars.map { latin[$0.value] ?? String($0) }.joined()
    }

    /// Where markup that starts at `index` (a `<` or a `&`) ends: a tag `<x…>`, `</x…>`, `<!…>`
    /// (to its `>`, before any other `<`), or an entity `&name;`, `&#123;`, `&#x1F;`; nil when
    /// what starts there is text.
    private static func markupEnd(_ scalars: String.UnicodeScalarView, at index: String.Index) -> String.Index? {
        var cursor = scalars.index(after: index)
        guard cursor < scalars.endIndex else { return nil }
        if scalars[index] == "<" {
            let first = scalars[cursor]
            guard first == "/" || first == "!" || first.properties.isAlphabetic && first.value < 0x80 else {
                return nil
            }
            var looked = 0
            while cursor < scalars.endIndex, looked < 4096 {
                if scalars[cursor] == ">" { return scalars.index(after: cursor) }
                if scalars[cursor] == "<" { return nil }
                cursor = scalars.index(after: cursor)
                looked += 1
            }
            return nil
        }
        var length = 0
        while cursor < scalars.endIndex, length < 32 {
            let scalar = scalars[cursor]
            if scalar == ";" { return length > 0 ? scalars.index(after: cursor) : nil }
            guard scalar.value < 0x80,
                scalar == "#" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            else { return nil }
            cursor = scalars.index(after: cursor)
            length += 1
        }
        return nil
    }

    /// Latin letters with accents (and the few without a decomposition: `æ`, `ø`, `ß`…), folded;
    /// Unicode's canonical decompositions of U+00C0 to U+024F, made once from its data.
    private static let latin: [UInt32: String] = [
        0xC0: "a", 0xC1: "a", 0xC2: "a", 0xC3: "a", 0xC4: "a", 0xC5: "a", 0xC6: "ae", 0xC7: "c", 0xC8: "e",
        0xC9: "e", 0xCA: "e", 0xCB: "e", 0xCC: "i", 0xCD: "i", 0xCE: "i", 0xCF: "i", 0xD0: "d", 0xD1: "n",
        0xD2: "o", 0xD3: "o", 0xD4: "o", 0xD5: "o", 0xD6: "o", 0xD8: "o", 0xD9: "u", 0xDA: "u", 0xDB: "u",
        0xDC: "u", 0xDD: "y", 0xDE: "th", 0xDF: "ss", 0xE0: "a", 0xE1: "a", 0xE2: "a", 0xE3: "a", 0xE4: "a",
        0xE5: "a", 0xE6: "ae", 0xE7: "c", 0xE8: "e", 0xE9: "e", 0xEA: "e", 0xEB: "e", 0xEC: "i", 0xED: "i",
        0xEE: "i", 0xEF: "i", 0xF0: "d", 0xF1: "n", 0xF2: "o", 0xF3: "o", 0xF4: "o", 0xF5: "o", 0xF6: "o",
        0xF8: "o", 0xF9: "u", 0xFA: "u", 0xFB: "u", 0xFC: "u", 0xFD: "y", 0xFE: "th", 0xFF: "y", 0x100: "a",
        0x101: "a", 0x102: "a", 0x103: "a", 0x104: "a", 0x105: "a", 0x106: "c", 0x107: "c", 0x108: "c", 0x109: "c",
        0x10A: "c", 0x10B: "c", 0x10C: "c", 0x10D: "c", 0x10E: "d", 0x10F: "d", 0x110: "d", 0x111: "d", 0x112: "e",
        0x113: "e", 0x114: "e", 0x115: "e", 0x116: "e", 0x117: "e", 0x118: "e", 0x119: "e", 0x11A: "e", 0x11B: "e",
        0x11C: "g", 0x11D: "g", 0x11E: "g", 0x11F: "g", 0x120: "g", 0x121: "g", 0x122: "g", 0x123: "g", 0x124: "h",
        0x125: "h", 0x126: "h", 0x127: "h", 0x128: "i", 0x129: "i", 0x12A: "i", 0x12B: "i", 0x12C: "i", 0x12D: "i",
        0x12E: "i", 0x12F: "i", 0x130: "i", 0x131: "i", 0x134: "j", 0x135: "j", 0x136: "k", 0x137: "k", 0x138: "k",
        0x139: "l", 0x13A: "l", 0x13B: "l", 0x13C: "l", 0x13D: "l", 0x13E: "l", 0x13F: "l", 0x140: "l", 0x141: "l",
        0x142: "l", 0x143: "n", 0x144: "n", 0x145: "n", 0x146: "n", 0x147: "n", 0x148: "n", 0x14A: "n", 0x14B: "n",
        0x14C: "o", 0x14D: "o", 0x14E: "o", 0x14F: "o", 0x150: "o", 0x151: "o", 0x152: "oe", 0x153: "oe",
        0x154: "r", 0x155: "r", 0x156: "r", 0x157: "r", 0x158: "r", 0x159: "r", 0x15A: "s", 0x15B: "s", 0x15C: "s",
        0x15D: "s", 0x15E: "s", 0x15F: "s", 0x160: "s", 0x161: "s", 0x162: "t", 0x163: "t", 0x164: "t", 0x165: "t",
        0x166: "t", 0x167: "t", 0x168: "u", 0x169: "u", 0x16A: "u", 0x16B: "u", 0x16C: "u", 0x16D: "u", 0x16E: "u",
        0x16F: "u", 0x170: "u", 0x171: "u", 0x172: "u", 0x173: "u", 0x174: "w", 0x175: "w", 0x176: "y", 0x177: "y",
        0x178: "y", 0x179: "z", 0x17A: "z", 0x17B: "z", 0x17C: "z", 0x17D: "z", 0x17E: "z", 0x17F: "s", 0x192: "f",
        0x1A0: "o", 0x1A1: "o", 0x1AF: "u", 0x1B0: "u", 0x1CD: "a", 0x1CE: "a", 0x1CF: "i", 0x1D0: "i", 0x1D1: "o",
        0x1D2: "o", 0x1D3: "u", 0x1D4: "u", 0x1D5: "u", 0x1D6: "u", 0x1D7: "u", 0x1D8: "u", 0x1D9: "u", 0x1DA: "u",
        0x1DB: "u", 0x1DC: "u", 0x1DE: "a", 0x1DF: "a", 0x1E0: "a", 0x1E1: "a", 0x1E6: "g", 0x1E7: "g", 0x1E8: "k",
        0x1E9: "k", 0x1EA: "o", 0x1EB: "o", 0x1EC: "o", 0x1ED: "o", 0x1F0: "j", 0x1F4: "g", 0x1F5: "g", 0x1F8: "n",
        0x1F9: "n", 0x1FA: "a", 0x1FB: "a", 0x200: "a", 0x201: "a", 0x202: "a", 0x203: "a", 0x204: "e", 0x205: "e",
        0x206: "e", 0x207: "e", 0x208: "i", 0x209: "i", 0x20A: "i", 0x20B: "i", 0x20C: "o", 0x20D: "o", 0x20E: "o",
        0x20F: "o", 0x210: "r", 0x211: "r", 0x212: "r", 0x213: "r", 0x214: "u", 0x215: "u", 0x216: "u", 0x217: "u",
        0x218: "s", 0x219: "s", 0x21A: "t", 0x21B: "t", 0x21E: "h", 0x21F: "h", 0x226: "a", 0x227: "a", 0x228: "e",
        0x229: "e", 0x22A: "o", 0x22B: "o", 0x22C: "o", 0x22D: "o", 0x22E: "o", 0x22F: "o", 0x230: "o", 0x231: "o",
        0x232: "y", 0x233: "y",
    ]
}
