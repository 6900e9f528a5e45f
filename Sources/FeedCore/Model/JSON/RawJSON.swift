import FoundationEssentials

/// A JSON value kept as the server's own text, compacted to one line.
///
/// Feeds keep each item's `source` this way: no re-encoding, so key order, duplicate members,
/// number spelling and unknown fields survive exactly; only whitespace between tokens is
/// removed, which makes it safe to embed in JSON Lines. Built only from bytes `JSONParser`
/// accepted (or read back from the store), so it is always one valid JSON value.
public struct RawJSON: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    /// Wraps text known to be one compact JSON value (as read back from the store).
    public init(compactText: String) {
        text = compactText
    }

    /// Compacts the bytes of a JSON value that has already been parsed.
    package init(_ data: Data) {
        self = data.withUnsafeBytes { RawJSON($0) }
    }

    /// Compacts the bytes of a JSON value that has already been parsed.
    package init(_ bytes: UnsafeRawBufferPointer) {
        text = String(unsafeUninitializedCapacity: bytes.count) { output in
            var count = 0
            var tracker = JSONStringTracker()
            for byte in bytes {
                if tracker.isStructural(byte), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { continue }
                output[count] = byte
                count += 1
            }
            return count
        }
    }

    public var description: String { text }
}
