import FoundationEssentials

/// Short, one-line, terminal-safe quotations of server data for error messages.
package enum Excerpt {
    /// The first bytes of `data` in guillemets, control characters escaped.
    package static func of(_ data: Data, limit: Int = 60) -> String {
        "«" + of(String(decoding: data.prefix(limit * 4), as: UTF8.self), limit: limit) + "»"
    }

    /// `text` cut to `limit` characters (with `…`), control characters escaped as plain output
    /// escapes them (`\x1B`, `\u009B`: `TerminalText`), never in a programming language's spelling.
    package static func of(_ text: String, limit: Int) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > limit else { return TerminalText.safe(text) }
        return TerminalText.safe(String(String.UnicodeScalarView(scalars.prefix(limit)))) + "…"
    }
}
