/// The key of a connection's statement cache: the statement's SQL, hashed by its length and its
/// first and last bytes only.
///
/// A statement's SQL runs to hundreds of bytes (a feed record's columns, the bookkeeping
/// `UPDATE`), and a quiet sync looks statements up thousands of times: hashing all of it at each
/// use showed up in its profile. Equality is still the whole text, and a cached
/// statement's SQL is usually the very string the call site holds, which `==` recognises
/// without reading it.
struct StatementKey: Hashable {
    let sql: String

    /// How many bytes of each end are hashed: enough to tell the statements of a store apart,
    /// whose beginnings (`SELECT name, url, …`) and ends (`WHERE name = ?`) repeat.
    private static let hashedEnd = 48

    func hash(into hasher: inout Hasher) {
        let utf8 = sql.utf8
        hasher.combine(utf8.count)
        let hashedEnds: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.prefix(Self.hashedEnd)))
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.suffix(Self.hashedEnd)))
            return true
        }
        // A string without contiguous UTF-8 (none that Swift makes on Linux) is hashed whole.
        if hashedEnds == nil { hasher.combine(sql) }
    }
}
