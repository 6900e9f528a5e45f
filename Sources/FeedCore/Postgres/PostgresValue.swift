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
}

/// A PostgreSQL `text[]` literal of `values` (`{"a","b"}`), for `= ANY($1::text[])`: one
/// statement however many feeds are named.
package func postgresArray(_ values: [String]) -> PostgresValue {
    let elements = values.map { value in
        "\"" + value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
    return .text("{" + elements.joined(separator: ",") + "}")
}
