import FeedModel
import FeedStoreContract

/// `feedcli search` on SQLite: the query spelt as an FTS5 expression over `SearchIndex`'s
/// table, the entries read by number.
extension FeedStore {
    public func search(_ request: SearchRequest, _ body: (SearchHit) throws -> Bool) throws(FeedFailure) {
        guard !request.query.isEmpty else { return }
        let plan = FTS5Plan(request.query)
        var conditions = plan.conditions
        var arguments = plan.arguments
        if !request.feeds.isEmpty {
            conditions.append(
                "e.feed IN (\(Array(repeating: "?", count: request.feeds.count).joined(separator: ", ")))")
            arguments += request.feeds.map { .text($0) }
        }
        if request.unreadOnly { conditions.append("e.read = 0") }
        if let since = request.sinceStamp {
            conditions.append("COALESCE(e.published, e.fetched_at) >= ?")
            arguments.append(.text(since))
        }
        let columns = StoreColumns.entry.split(separator: ", ").map { "e." + $0 }.joined(separator: ", ")
        let limit = request.limit.map { " LIMIT \($0)" } ?? ""
        let sql: String
        let ranked = request.ranked && plan.match != nil
        if let match = plan.match, ranked {
            // bm25: a title's words weigh ten times a text's, an author's twice.
            sql = """
                SELECT \(columns), -bm25(entry_search, 10.0, 1.0, 2.0, 1.0, 1.0) AS rank
                FROM entry_search JOIN entry AS e ON e.seq = entry_search.rowid
                WHERE entry_search MATCH ?\(conditions.map { " AND " + $0 }.joined())
                ORDER BY rank DESC, e.seq DESC\(limit)
                """
            arguments.insert(.text(match), at: 0)
        } else {
            var all = conditions
            if let match = plan.match {
                all.insert("e.seq IN (SELECT rowid FROM entry_search WHERE entry_search MATCH ?)", at: 0)
                arguments.insert(.text(match), at: 0)
            }
            sql = """
                SELECT \(columns)\(request.ranked ? ", 0.0" : "") FROM entry AS e
                WHERE \(all.isEmpty ? "1" : all.joined(separator: " AND "))
                ORDER BY COALESCE(e.published, e.fetched_at) DESC, e.seq DESC\(limit)
                """
        }
        try read { db in
            try db.statement(sql).forEach(arguments) { row in
                let entry = try Self.entry(row)
                let rank = request.ranked ? row.double(StoreColumns.entryColumnCount) : nil
                return try body(SearchHit(entry: entry, rank: rank))
            }
        }
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
