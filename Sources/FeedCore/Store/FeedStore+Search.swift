import FeedModel
import FeedStoreContract

/// `feedcli search` on SQLite: the query spelt as an FTS5 expression over `SearchIndex`'s
/// table, the entries read by number.
extension FeedStore {
    public func search(_ request: SearchRequest, _ body: (SearchHit) throws -> Bool) throws(FeedFailure) {
        guard !request.query.isEmpty else { return }
        try catchUpSearchIndex(notice: request.notice, progress: request.progress)
        let plan = FTS5Plan(request.query)
        var filters = plan.conditions
        var arguments = plan.arguments
        if !request.feeds.isEmpty {
            filters.append("e.feed IN (\(Array(repeating: "?", count: request.feeds.count).joined(separator: ", ")))")
            arguments += request.feeds.map { .text($0) }
        }
        if request.unreadOnly { filters.append("e.read = 0") }
        if let since = request.sinceStamp {
            filters.append("COALESCE(e.published, e.fetched_at) >= ?")
            arguments.append(.text(since))
        }
        if let match = plan.match, !request.ranked, let limit = request.limit, try isDense(match, limit: limit) {
            return try searchWalkingDates(
                match: match, filters: filters, arguments: arguments, unreadOnly: request.unreadOnly, limit: limit, body
            )
        }
        let (sql, all) = Self.searchStatement(plan: plan, filters: filters, arguments: arguments, request: request)
        try read { db in
            try db.statement(sql).forEach(all) { row in
                let entry = try Self.entry(row)
                let rank = request.ranked ? row.double(StoreColumns.entryColumnCount) : nil
                return try body(SearchHit(entry: entry, rank: rank))
            }
        }
    }

    /// The newest `limit` matches of a query most entries match: the matches' numbers read once
    /// from the search index, then unread and read entries each walked newest first
    /// along their index of dates (`entry_by_read_publication`, numbers only) until `limit` of
    /// each are in the set; the two merged, and only those read whole. Reading every match to
    /// sort it read a tenth of the store for a word in one entry in ten; SQLite's own `IN`
    /// built its lookup table once for each of the two walks.
    private func searchWalkingDates(
        match: String, filters: [String], arguments: [SQLiteValue], unreadOnly: Bool, limit: Int,
        _ body: (SearchHit) throws -> Bool
    ) throws(FeedFailure) {
        let columns = StoreColumns.entry.split(separator: ", ").map { "e." + $0 }.joined(separator: ", ")
        let newest = "COALESCE(e.published, e.fetched_at)"
        let filtered = filters.map { " AND " + $0 }.joined()
        var found: [(entry: Entry, listed: String)] = []
        try read { db in
            // In number order, as FTS5 gives them: looked up by halving, never hashed.
            var matches: [Int64] = []
            try db.statement("SELECT rowid FROM entry_search WHERE entry_search MATCH ?").forEach([.text(match)]) {
                matches.append($0.int64(0))
                return true
            }
            if zip(matches, matches.dropFirst()).contains(where: { $0 > $1 }) { matches.sort() }
            for arm in unreadOnly ? [0] : [0, 1] {
                var kept: [Int64] = []
                let walk = """
                    SELECT e.seq FROM entry AS e INDEXED BY entry_by_read_publication
                    WHERE e.read = \(arm)\(filtered) ORDER BY \(newest) DESC, e.seq DESC
                    """
                try db.statement(walk).forEach(arguments) { row in
                    let seq = row.int64(0)
                    if Self.holds(matches, seq) { kept.append(seq) }
                    return kept.count < limit
                }
                let read = try db.statement("SELECT \(columns), \(newest) FROM entry AS e WHERE e.seq = ?")
                for seq in kept {
                    _ = try read.first([.integer(seq)]) { row in
                        found.append((try Self.entry(row), row.text(StoreColumns.entryColumnCount) ?? ""))
                    }
                }
            }
        }
        found.sort { $0.listed != $1.listed ? $0.listed > $1.listed : $0.entry.seq > $1.entry.seq }
        do {
            for hit in found.prefix(limit) where try !body(SearchHit(entry: hit.entry)) { break }
        } catch let failure as FeedFailure {
            throw failure
        } catch {
            throw StoreFile.failure(error, path: path)
        }
    }

    /// Whether `sorted` holds `value`.
    private static func holds(_ sorted: [Int64], _ value: Int64) -> Bool {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == value
    }

    /// The statement that reads the matches and its arguments. The order is found from keys
    /// alone (a number and a date, or a rank), and only the entries kept are read whole: a
    /// sort of whole entries copied each one's text and source into the sorter.
    ///
    /// `filters` are conditions on `e`, the entry; `arguments` theirs, after the plan's.
    private static func searchStatement(
        plan: FTS5Plan, filters: [String], arguments: [SQLiteValue], request: SearchRequest
    ) -> (String, [SQLiteValue]) {
        let columns = StoreColumns.entry.split(separator: ", ").map { "e." + $0 }.joined(separator: ", ")
        let limit = request.limit.map { " LIMIT \($0)" } ?? ""
        let newest = "COALESCE(e.published, e.fetched_at)"
        let filtered = filters.map { " AND " + $0 }.joined()
        guard let match = plan.match else {
            // Exclusions alone: every entry but those.
            let sql = """
                SELECT \(columns)\(request.ranked ? ", 0.0" : "") FROM entry AS e WHERE 1\(filtered)
                ORDER BY \(newest) DESC, e.seq DESC\(limit)
                """
            return (sql, arguments)
        }
        if request.ranked {
            // bm25: a title's words weigh ten times a text's, an author's twice.
            let sql = """
                SELECT \(columns), kept.rank FROM (
                    SELECT entry_search.rowid AS seq, -bm25(entry_search, 10.0, 1.0, 2.0, 1.0, 1.0) AS rank
                    FROM entry_search JOIN entry AS e ON e.seq = entry_search.rowid
                    WHERE entry_search MATCH ?\(filtered) ORDER BY rank DESC, seq DESC\(limit)
                ) AS kept JOIN entry AS e ON e.seq = kept.seq ORDER BY kept.rank DESC, kept.seq DESC
                """
            return (sql, [.text(match)] + arguments)
        }
        let sql = """
            SELECT \(columns) FROM (
                SELECT e.seq AS seq, \(newest) AS listed FROM entry AS e
                WHERE e.seq IN (SELECT rowid FROM entry_search WHERE entry_search MATCH ?)\(filtered)
                ORDER BY listed DESC, seq DESC\(limit)
            ) AS kept JOIN entry AS e ON e.seq = kept.seq ORDER BY kept.listed DESC, kept.seq DESC
            """
        return (sql, [.text(match)] + arguments)
    }
}

extension FeedStore {
    /// Whether `match` holds so many entries that the newest `limit` are found sooner by walking
    /// the entries newest first and looking each up in the index than by reading and sorting
    /// every match: a walk looks at about `limit × entries / matches` entries, a sort reads
    /// `matches`. Counted in the index up to where the walk wins.
    private func isDense(_ match: String, limit: Int) throws(FeedFailure) -> Bool {
        guard limit > 0 else { return false }
        return try read { db in
            let entries = try db.statement("SELECT COALESCE(SUM(entry_count), 0) FROM feed").first { $0.int64(0) } ?? 0
            // A step of the walk costs about a tenth of reading a match whole: the walk wins
            // from matches² ≥ limit × entries / 8 (scripts/bench-search.sh, the rows of a rare
            // and a common word).
            // In floating point: a limit may be as large as the user types it.
            let enough = (Double(limit) * Double(entries) / 8).squareRoot() + 1
            guard enough < Double(entries) else { return false }
            let matches =
                try db.statement(
                    "SELECT COUNT(*) FROM (SELECT rowid FROM entry_search WHERE entry_search MATCH ? LIMIT ?)"
                )
                .first([.text(match), .integer(Int64(enough))]) { $0.int64(0) } ?? 0
            return Double(matches) >= enough.rounded(.down)
        }
    }

    /// Entries indexed a transaction at a time, so that a writer waits at most one step.
    static let searchIndexStep = 5_000

    /// Indexes every entry the index does not hold yet (`SearchIndex.catchUp`), a step a
    /// transaction. A store that cannot be written (a read-only file) is searched as far as
    /// its index goes.
    func catchUpSearchIndex(
        notice: (String) -> Void, progress: (_ indexed: Int64, _ total: Int64) -> Void = { _, _ in }
    ) throws(FeedFailure) {
        guard writes else { return }
        let (marks, behind) = try read { db in (try SearchIndex.marks(db), try SearchIndex.behind(db)) }
        guard behind > 0 else { return }
        if !marks.built {
            notice("building the search index of the store at \(path) (once; \(behind) entries)")
        }
        let step = Self.searchIndexStep
        var indexed: Int64 = 0
        while true {
            let done = try write { db in try SearchIndex.catchUp(db, step: step) }
            indexed += Int64(done)
            if behind > step { progress(min(indexed, behind), behind) }
            if done < step { break }
        }
        if behind > step, indexed < behind { progress(behind, behind) }
    }
}

/// A query as FTS5 reads it: the clauses whose terms are all wanted as one `MATCH` expression
/// (`("a" OR "b") AND "c" NOT "d"`), and what that cannot say (a query of exclusions alone, an
/// exclusion among alternatives) as conditions on the entry's number. Every word is quoted: FTS5
/// sees no operator of the user's.
struct FTS5Plan {
    var match: String?
    var conditions: [String] = []
    var arguments: [SQLiteValue] = []

    init(_ query: SearchQuery) {
        let wanted = query.clauses.filter { $0.allSatisfy { !$0.isNegated } }
        let excluded = query.clauses.filter { $0.count == 1 && $0[0].isNegated }
        let mixed = query.clauses.filter { clause in clause.contains(where: \.isNegated) && clause.count > 1 }
        var expression = wanted.map { "(" + $0.map(Self.spelt).joined(separator: " OR ") + ")" }
            .joined(separator: " AND ")
        let inIndex = "e.seq IN (SELECT rowid FROM entry_search WHERE entry_search MATCH ?)"
        let notInIndex = "e.seq NOT IN (SELECT rowid FROM entry_search WHERE entry_search MATCH ?)"
        for clause in excluded {
            if expression.isEmpty {
                conditions.append(notInIndex)
                arguments.append(.text(Self.spelt(clause[0])))
            } else {
                expression += " NOT " + Self.spelt(clause[0])
            }
        }
        for clause in mixed {
            conditions.append("(" + clause.map { $0.isNegated ? notInIndex : inIndex }.joined(separator: " OR ") + ")")
            arguments += clause.map { .text(Self.spelt($0)) }
        }
        match = expression.isEmpty ? nil : expression
    }

    /// One term: its columns, its words as one quoted phrase, `*` for a prefix (its sign, if
    /// any, is the caller's).
    static func spelt(_ term: SearchQuery.Term) -> String {
        let columns =
            switch term.field {
            case .any: "{title body author link}"
            case .title: "{title}"
            case .author: "{author}"
            case .feed: "{feed}"
            }
        let phrase = "\"" + term.words.joined(separator: " ").replacing("\"", with: "\"\"") + "\""
        return "\(columns) : \(phrase)\(term.isPrefix ? " *" : "")"
    }
}
