/// The query both stores list entries with (`forEachEntry`: `list`, `export`, `store copy`),
/// written once: the engines differ only in how they spell a condition and a parameter, and in
/// whether an order is read from one index or merged from the arms of another (`arms`).
package enum EntryListing {
    /// `StoreColumns.entry` of the entries meeting `conditions` (each in the engine's spelling,
    /// joined by AND), by `order`, newest first or oldest first; with `limitParameter` (the
    /// engine's placeholder for N), the newest N either way, then in the order asked.
    ///
    /// `arms`: conditions that split the entries into parts, each read in order from an index of
    /// its own range and merged under the one ORDER BY (a `UNION ALL`; SQLite's `ReadSplitOrder`).
    /// Their union must be every entry meant. Rows then carry one column more after
    /// `StoreColumns.entry` when listed by publication (the key merged on).
    package static func query(
        where conditions: [String], order: EntryOrder, newestFirst: Bool, limitParameter: String?,
        arms: [String] = []
    ) -> String {
        let merged = arms.count > 1
        let key =
            order == .stored
            ? ["seq"] : [merged ? "listed_at" : "COALESCE(published, fetched_at)", "seq"]
        let columns =
            StoreColumns.entry + (merged && order == .published ? ", COALESCE(published, fetched_at) AS listed_at" : "")
        func select(_ arm: String?) -> String {
            let all = conditions + (arm.map { [$0] } ?? [])
            return "SELECT \(columns) FROM entry" + (all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND "))
        }
        let select = arms.isEmpty ? select(nil) : arms.map(select).joined(separator: " UNION ALL ")
        func by(_ descending: Bool) -> String { key.map { $0 + (descending ? " DESC" : "") }.joined(separator: ", ") }
        guard let limitParameter else { return select + " ORDER BY \(by(newestFirst))" }
        let newest = select + " ORDER BY \(by(true)) LIMIT \(limitParameter)"
        // The outer query sees the inner one's columns by name: `StoreColumns.entry` are plain names.
        return newestFirst ? newest : "SELECT * FROM (\(newest)) AS newest ORDER BY \(by(false))"
    }
}
