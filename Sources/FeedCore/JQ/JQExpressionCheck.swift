import FoundationEssentials
import Glibc

/// Finds the builtins of jq that read outside the expression and its input, which feedcli
/// refuses when an expression is given (`feeds add`, `feeds set`, `feeds import`), before jq
/// compiles it: jq 1.6 aborts while compiling `include` or `import` without a search path, and
/// `input`/`inputs` would read what is not the page (in a worker they crash it).
///
/// It reads the expression as jq's lexer does, as far as telling a call from other text takes:
/// string literals (with their `\(…)` interpolations, which are code), comments, field names
/// (`.input`), variables (`$input`) and object keys written as identifiers (`{input: 1}`, not
/// a slice's `.[input:]`) are
/// not calls; a word followed by `::` is a module name. What it misses the worker still
/// contains: no file can be opened there, and nothing there sees the environment.
package enum JQExpressionCheck {
    /// The builtins refused, by name.
    package static let refused: Set<String> = [
        "import", "include", "input", "inputs", "input_filename", "modulemeta", "get_search_list",
    ]

    /// What a closing byte closes: a parenthesis, a bracket, a brace, or a string's
    /// interpolation (whose `)` goes back into the string).
    private enum Open {
        case parenthesis, bracket, brace, interpolation
    }

    /// The first refused builtin `expression` calls, or nil.
    package static func refusedBuiltin(in expression: String) -> String? {
        let bytes = Array(expression.utf8)
        var index = 0
        var open: [Open] = []
        // The last byte that was not blank, outside strings: tells an object key from a call.
        var previous: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\""), let end = endOfStringPart(bytes, from: index + 1) {
                index = end.index
                if end.opensInterpolation { open.append(.interpolation) }
                previous = byte
                continue
            }
            if byte == UInt8(ascii: ")"), open.last == .interpolation {
                open.removeLast()
                guard let end = endOfStringPart(bytes, from: index + 1) else { return nil }
                index = end.index
                if end.opensInterpolation { open.append(.interpolation) }
                previous = UInt8(ascii: "\"")
                continue
            }
            if byte == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
                continue
            }
            if isWordStart(byte) {
                let start = index
                while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                let before = start > 0 ? bytes[start - 1] : 0
                let isName = before == UInt8(ascii: ".") || before == UInt8(ascii: "$") || before == UInt8(ascii: "@")
                let isKey =
                    open.last == .brace && (previous == UInt8(ascii: "{") || previous == UInt8(ascii: ","))
                    && isFollowedByColon(bytes, after: index)
                if !isName, !isKey, !isModuleName(bytes, after: index), refused.contains(word) { return word }
                previous = UInt8(ascii: "a")
                continue
            }
            switch byte {
            case UInt8(ascii: "("): open.append(.parenthesis)
            case UInt8(ascii: "["): open.append(.bracket)
            case UInt8(ascii: "{"): open.append(.brace)
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"): if !open.isEmpty { open.removeLast() }
            default: break
            }
            if !isBlank(byte) { previous = byte }
            index += 1
        }
        return nil
    }

    /// Where a string literal's part that starts at `index` (just past `"` or an interpolation's
    /// `)`) ends: past its closing quote, or past the `\(` that opens an interpolation. Nil for
    /// an unterminated string (jq will refuse it).
    private static func endOfStringPart(_ bytes: [UInt8], from index: Int) -> (index: Int, opensInterpolation: Bool)? {
        var index = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return (index + 1, false)
            case UInt8(ascii: "\\"):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "(") { return (index + 2, true) }
                index += 2
            default: index += 1
            }
        }
        return nil
    }

    private static func isWordStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_")
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        isWordStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Whether a `:` (not `::`) follows the word that ended at `index`, after blanks.
    private static func isFollowedByColon(_ bytes: [UInt8], after index: Int) -> Bool {
        var next = index
        while next < bytes.count, isBlank(bytes[next]) { next += 1 }
        guard next < bytes.count, bytes[next] == UInt8(ascii: ":") else { return false }
        return next + 1 >= bytes.count || bytes[next + 1] != UInt8(ascii: ":")
    }

    /// Whether the word that ended at `index` names a module (`input::f`).
    private static func isModuleName(_ bytes: [UInt8], after index: Int) -> Bool {
        index + 1 < bytes.count && bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: ":")
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
    }
}
