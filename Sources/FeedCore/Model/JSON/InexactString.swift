import FoundationEssentials

/// A JSON string that Unicode text cannot hold as the server sent it, in its two readings.
///
/// JSON allows `"\ud800"` (half of a surrogate pair, alone) and servers send bytes that are not
/// UTF-8; a Swift `String` can hold neither, and replacing each with U+FFFD makes `"\ud800"`,
/// `"\ud801"` and `"\udc00"` one and the same. Text (titles, bodies) reads the replaced form;
/// ids read the escaped one, which keeps every such string distinct and can be typed back to
/// `read` or `show`.
public struct InexactString: Sendable, Hashable {
    /// The string with U+FFFD in place of each lone surrogate and each byte that is not UTF-8.
    public var decoded: String
    /// The string with each lone surrogate as its escape in lower case (`\ud800`), each byte
    /// that is not UTF-8 as `\xHH` (`\xff`) and each backslash doubled; everything else as
    /// decoded. Being an escaping, no two inexact strings share an escaped form. (A valid string
    /// that spells one out, `"\\ud800"`, reads the same: feedcli takes that as the price of ids
    /// users can type.)
    public var escaped: String

    public init(decoded: String, escaped: String) {
        self.decoded = decoded
        self.escaped = escaped
    }

    /// The two readings of a string's decoded bytes: `replaced` holds U+FFFD for each lone
    /// surrogate; `marked`, when the string had one, holds its escape text instead and each
    /// backslash doubled (nil: the bytes are only not UTF-8, and `replaced` is marked but for
    /// its backslashes).
    package static func reading(replaced: [UInt8], marked: [UInt8]?) -> InexactString {
        InexactString(
            decoded: String(decoding: replaced, as: UTF8.self),
            escaped: escapingInvalidUTF8(marked ?? doublingBackslashes(replaced)))
    }

    /// `bytes` with each backslash written twice.
    package static func doublingBackslashes<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        for byte in bytes {
            output.append(byte)
            if byte == UInt8(ascii: "\\") { output.append(byte) }
        }
        return output
    }

    /// The bytes as text, each byte that is not part of a valid UTF-8 sequence written as `\xHH`.
    package static func escapingInvalidUTF8(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                output.append(contentsOf: encoded)
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<(offset + length)] {
                    output.append(contentsOf: "\\x".utf8)
                    output.append(hexDigit(byte >> 4))
                    output.append(hexDigit(byte & 0x0F))
                }
                offset += length
            case .emptyInput:
                return String(decoding: output, as: UTF8.self)
            }
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x61 + value - 10
    }
}
