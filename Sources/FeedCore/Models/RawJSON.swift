import Foundation

/// A JSON value kept as the server's own text, compacted to one line.
///
/// Feeds keep each item's `source` this way: no re-encoding, so key order, number spelling and
/// unknown fields survive exactly; only whitespace between tokens is removed, which makes it safe
/// to embed in JSON Lines. The slicing helpers expect input that has already parsed as JSON
/// (they run after `JSONDecoder` accepted the document) and do not validate it again.
public struct RawJSON: Sendable, Hashable, Codable, CustomStringConvertible {
    public let text: String

    /// Wraps text known to be one compact JSON value (as read back from the store).
    public init(compactText: String) {
        text = compactText
    }

    /// Compacts a JSON value's bytes.
    public init(_ bytes: some Collection<UInt8>) {
        text = String(decoding: RawJSON.compact(bytes), as: UTF8.self)
    }

    public var description: String { text }

    public var data: Data { Data(text.utf8) }

    /// Decodes any JSON value and keeps it in compact form (used when reading our own output).
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        let encoded = try JSONEncoder().encode(value)
        self.init(encoded)
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONDecoder().decode(JSONValue.self, from: data).encode(to: encoder)
    }

    /// Removes whitespace outside strings.
    static func compact(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var inString = false, escaped = false
        for byte in bytes {
            if inString {
                output.append(byte)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                output.append(byte)
            } else if !(byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09) {
                output.append(byte)
            }
        }
        return output
    }

    /// The elements of the array at the top of `bytes` (`key == nil`) or under the top-level
    /// object's `key`, each as raw JSON; nil when there is no such array.
    static func arrayElements(in bytes: [UInt8], key: String?) -> [RawJSON]? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        if let key {
            guard scanner.consume(UInt8(ascii: "{")) else { return nil }
            let wanted = Array(key.utf8)
            while true {
                scanner.skipWhitespace()
                guard let name = scanner.stringContents() else { return nil }
                scanner.skipWhitespace()
                guard scanner.consume(UInt8(ascii: ":")) else { return nil }
                scanner.skipWhitespace()
                if name.elementsEqual(wanted) { break }
                guard scanner.skipValue() else { return nil }
                scanner.skipWhitespace()
                guard scanner.consume(UInt8(ascii: ",")) else { return nil }
            }
        }
        guard scanner.consume(UInt8(ascii: "[")) else { return nil }
        var elements: [RawJSON] = []
        scanner.skipWhitespace()
        if scanner.consume(UInt8(ascii: "]")) { return elements }
        while true {
            scanner.skipWhitespace()
            let start = scanner.position
            guard scanner.skipValue() else { return nil }
            elements.append(RawJSON(bytes[start..<scanner.position]))
            scanner.skipWhitespace()
            if scanner.consume(UInt8(ascii: "]")) { return elements }
            guard scanner.consume(UInt8(ascii: ",")) else { return nil }
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// The raw bytes between the quotes of the string at the cursor.
        mutating func stringContents() -> ArraySlice<UInt8>? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = position
            var escaped = false
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                    return bytes[start..<(position - 1)]
                }
            }
            return nil
        }

        /// Moves past one value of any type.
        mutating func skipValue() -> Bool {
            guard position < bytes.count else { return false }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                return stringContents() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while position < bytes.count {
                    switch bytes[position] {
                    case UInt8(ascii: "\""):
                        guard stringContents() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return true
                        }
                    default: break
                    }
                    position += 1
                }
                return false
            default:
                let start = position
                while position < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"),
                                                 0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) {
                    position += 1
                }
                return position > start
            }
        }
    }
}
