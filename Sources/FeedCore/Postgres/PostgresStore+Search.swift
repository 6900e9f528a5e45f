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
        let rank = request.ranked ? ", ts_rank(search, $1::tsquery)::float8" : ""
        let order =
            request.ranked
            ? "\(StoreColumns.entryColumnCount + 1) DESC, seq DESC" : "COALESCE(published, fetched_at) DESC, seq DESC"
        let limit = request.limit.map { " LIMIT \($0)" } ?? ""
        let sql = """
            SELECT \(StoreColumns.entry)\(rank) FROM entry WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(order)\(limit)
            """
        try transaction(readOnly: true) { (db: PostgresConnection) throws(FeedFailure) in
            let result = try db.execute(sql, parameters)
            for row in result.rows {
                let entry = try row.entry()
                let rank = request.ranked ? row.double(StoreColumns.entryColumnCount) : nil
                let goOn: Bool
                do {
                    goOn = try body(SearchHit(entry: entry, rank: rank))
                } catch let failure as FeedFailure {
                    throw failure
                } catch {
                    throw FeedFailure.storeAccess("\(error)")
                }
                if !goOn { break }
            }
        }
    }
}
