import FoundationEssentials
import Glibc

/// UTF-8 checks for the reader's strings and the WebSocket's text messages.
package enum UTF8Check {
    /// `bytes` as a string when they are valid UTF-8, else nil. What `String(validating:as:)`
    /// says, at a fraction of its cost: that initializer instantiates generic metadata at run time
    /// for every string.
    /// Decoding repairs a bad sequence with U+FFFD, so the text equals the bytes exactly when
    /// they were valid.
    /// Text that is all ASCII (most of a feed's) is valid as it is and is not compared again.
    static func valid(_ bytes: UnsafeRawBufferPointer) -> String? {
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

    /// Whether `bytes` are well-formed UTF-8 (Unicode's table 3-7: no overlong form, no
    /// surrogate, nothing past U+10FFFF), allocating nothing: a text message of `--max-size` is
    /// checked without a second copy of it.
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if isASCII(bytes) { return true }
        var index = 0
        let count = bytes.count
        /// Whether the byte at `offset` from the lead is within `range`.
        func byte(_ offset: Int, in range: ClosedRange<UInt8>) -> Bool {
            index + offset < count && range.contains(bytes[index + offset])
        }
        let tail: ClosedRange<UInt8> = 0x80...0xBF
        while index < count {
            let lead = bytes[index]
            let length: Int
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = byte(1, in: tail) ? 2 : 0
            case 0xE0: length = byte(1, in: 0xA0...0xBF) && byte(2, in: tail) ? 3 : 0
            case 0xE1...0xEC, 0xEE...0xEF: length = byte(1, in: tail) && byte(2, in: tail) ? 3 : 0
            case 0xED: length = byte(1, in: 0x80...0x9F) && byte(2, in: tail) ? 3 : 0
            case 0xF0: length = byte(1, in: 0x90...0xBF) && byte(2, in: tail) && byte(3, in: tail) ? 4 : 0
            case 0xF1...0xF3: length = byte(1, in: tail) && byte(2, in: tail) && byte(3, in: tail) ? 4 : 0
            case 0xF4: length = byte(1, in: 0x80...0x8F) && byte(2, in: tail) && byte(3, in: tail) ? 4 : 0
            default: length = 0
            }
            guard length > 0 else { return false }
            index += length
        }
        return true
    }

    /// Whether every byte is below 0x80, eight at a time.
    package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var high: UInt64 = 0
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
}
