/// The query both stores list entries with (`forEachEntry`: `list`, `export`, `store copy`),
/// written once: the engines differ only in how they spell a condition and a parameter.
package enum EntryListing {
    /// `StoreColumns.entry` of the entries meeting `conditions` (each in the engine's spelling,
    /// joined by AND), by `order`, newest first or oldest first; with `limitParameter` (the
    /// engine's placeholder for N), the newest N either way, then in the order asked.
    package static func query(where conditions: [String], order: EntryOrder, newestFirst: Bool, limitParameter: String?)
        -> String
    {
        let select =
            "SELECT \(StoreColumns.entry) FROM entry"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        let key = order == .stored ? ["seq"] : ["COALESCE(published, fetched_at)", "seq"]
        func by(_ descending: Bool) -> String { key.map { $0 + (descending ? " DESC" : "") }.joined(separator: ", ") }
        guard let limitParameter else { return select + " ORDER BY \(by(newestFirst))" }
        let newest = select + " ORDER BY \(by(true)) LIMIT \(limitParameter)"
        // The outer query sees the inner one's columns by name: `StoreColumns.entry` are plain names.
        return newestFirst ? newest : "SELECT * FROM (\(newest)) AS newest ORDER BY \(by(false))"
    }
}
