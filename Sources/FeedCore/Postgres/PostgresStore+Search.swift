import FeedModel
import FeedStoreContract

/// `feedcli search` on PostgreSQL: the query as a `tsquery` (`PostgresSearch`) against the
/// entries' `search` column and its GIN index.
extension PostgresStore {
    public func search(_ request: SearchRequest, _ body: (SearchHit) throws -> Bool) throws(FeedFailure) {
        guard let query = PostgresSearch.query(request.query) else { return }
        var conditions = ["search @@ $1::tsquery"]
        var parameters: [PostgresValue] = [.text(query)]
        if !request.feeds.isEmpty {
            parameters.append(postgresArray(request.feeds))
            conditions.append("feed = ANY($\(parameters.count)::text[])")
        }
        if request.unreadOnly { conditions.append("NOT read") }
        if let since = request.sinceStamp {
            parameters.append(.text(since))
            conditions.append("COALESCE(published, fetched_at) >= $\(parameters.count)")
        }
        if !request.ranked, let limit = request.limit, limit > 0,
            let few = try fewMatches(conditions: conditions, parameters: parameters, limit: limit)
        {
            return try deliver(few, body)
        }
        let rank = request.ranked ? ", ts_rank(search, $1::tsquery)::float8" : ""
        let order =
            request.ranked
            ? "\(StoreColumns.entryColumnCount + 1) DESC, seq DESC" : "COALESCE(published, fetched_at) DESC, seq DESC"
        let limit = request.limit.map { " LIMIT \($0)" } ?? ""
        let sql = """
            SELECT \(StoreColumns.entry)\(rank) FROM entry WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(order)\(limit)
            """
        let hits = try transaction(readOnly: true) { (db: PostgresConnection) throws(FeedFailure) -> [SearchHit] in
            try db.execute(sql, parameters).rows.map { row throws(FeedFailure) in
                SearchHit(
                    entry: try row.entry(), rank: request.ranked ? row.double(StoreColumns.entryColumnCount) : nil)
            }
        }
        try deliver(hits, body)
    }

    /// The newest `limit` matches when there are few: read (numbers and dates only) up to the
    /// number past which walking the entries newest first is quicker, sorted here; nil when
    /// there are more (then the planner's walk along the date index finds the newest soon).
    /// Left to itself, the planner walked the dates for a rare word too (its GIN statistics
    /// say little of a word's count), and, kept from walking, read every match of a common one
    /// (scripts/bench-search.sh's PostgreSQL rows).
    private func fewMatches(conditions: [String], parameters: [PostgresValue], limit: Int) throws(FeedFailure)
        -> [SearchHit]?
    {
        try transaction(readOnly: true) { (db: PostgresConnection) throws(FeedFailure) -> [SearchHit]? in
            let stored = try db.execute("SELECT COALESCE(SUM(entry_count), 0)::bigint FROM feed").firstInteger() ?? 0
            // In floating point: a limit may be as large as the user types it.
            let bound = (Double(limit) * Double(stored) / 8).squareRoot() + 1
            guard bound < Double(stored) else { return nil }
            let enough = Int64(bound)
            let keys = try db.execute(
                """
                SELECT seq, COALESCE(published, fetched_at) FROM entry WHERE \(conditions.joined(separator: " AND "))
                LIMIT \(enough + 1)
                """, parameters
            ).rows.map { row throws(FeedFailure) in (seq: Int64(try row.integer(0) ?? 0), listed: row.text(1) ?? "") }
            guard keys.count <= enough else { return nil }
            let newest = keys.sorted { $0.listed != $1.listed ? $0.listed > $1.listed : $0.seq > $1.seq }.prefix(limit)
            guard !newest.isEmpty else { return [] }
            let entries = try db.execute(
                "SELECT \(StoreColumns.entry) FROM entry WHERE seq = ANY($1::bigint[])",
                [.text("{" + newest.map { String($0.seq) }.joined(separator: ",") + "}")]
            ).entries()
            let bySeq = Dictionary(entries.map { ($0.seq, $0) }, uniquingKeysWith: { first, _ in first })
            return newest.compactMap { bySeq[$0.seq].map { SearchHit(entry: $0) } }
        }
    }

    /// Hands `hits` to `body` in order until it says stop.
    private func deliver(_ hits: [SearchHit], _ body: (SearchHit) throws -> Bool) throws(FeedFailure) {
        do {
            for hit in hits where try !body(hit) { break }
        } catch let failure as FeedFailure {
            throw failure
        } catch {
            throw FeedFailure.storeAccess("\(error)")
        }
    }
}
