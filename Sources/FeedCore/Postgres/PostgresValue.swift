/// A parameter of a PostgreSQL statement, as libpq sends it: text the server converts to the
/// column's type, or bytes sent as they are (`bytea`, in binary format).
package enum PostgresValue: Sendable {
    case null
    case text(String)
    case bytes(String)

    package init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    package init(_ value: Int?) { self = value.map { .text(String($0)) } ?? .null }
    package init(_ value: Int64?) { self = value.map { .text(String($0)) } ?? .null }
    package init(_ value: Bool) { self = .text(value ? "t" : "f") }
    /// Entry text (`id`, `title`, …) kept byte for byte, NUL included, as SQLite's blobs keep it.
    package init(bytes value: String?) { self = value.map { .bytes($0) } ?? .null }

    /// The bytes libpq is given (text NUL-terminated, as it reads text parameters) and the
    /// format: 0 text, 1 binary. A NUL inside text cannot be sent as text: it becomes U+FFFD
    /// (names, URLs and messages never hold one; entry text goes as bytes).
    var wire: (bytes: [UInt8], format: Int32)? {
        switch self {
        case .null: return nil
        case .text(let text):
            var bytes = Array(text.utf8)
            if bytes.contains(0) { bytes = Array(text.replacing("\u{0}", with: "\u{FFFD}").utf8) }
            bytes.append(0)
            return (bytes, 0)
        case .bytes(let text): return (Array(text.utf8), 1)
        }
    }
}

/// A PostgreSQL `text[]` literal of `values` (`{"a","b"}`), for `= ANY($1::text[])`: one
/// statement however many feeds are named.
package func postgresArray(_ values: [String]) -> PostgresValue {
    let elements = values.map { value in
        "\"" + value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
    return .text("{" + elements.joined(separator: ",") + "}")
}
