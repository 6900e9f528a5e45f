import FoundationEssentials

/// Follows JSON text byte by byte and tells which bytes are structure, outside every string
/// (a quote and what lies between quotes are not). No validation: for text the parser has
/// accepted (compacting it), or for a bound that needs no more (counting values).
package struct JSONStringTracker {
    private var inString = false
    private var escaped = false

    /// Whether `byte`, the next one of the text, lies outside every string.
    package mutating func isStructural(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return false
        }
        if byte == UInt8(ascii: "\"") {
            inString = true
            return false
        }
        return true
    }
}
