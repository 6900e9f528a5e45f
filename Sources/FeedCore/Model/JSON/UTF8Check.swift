import FoundationEssentials
import Glibc

/// UTF-8 checks for the reader's strings.
enum UTF8Check {
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

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
