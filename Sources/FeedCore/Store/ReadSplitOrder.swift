/// The orders a SQLite store reads entries in without an index of their own (schema v16): each
/// is the merge of two ranges of an index that begins with `read`, the unread entries' and the
/// read ones' (`read` is 0 or 1, nothing else).
///
/// Why: every index is written for every entry stored and again when it is pruned. `(feed,
/// seq)` and `(COALESCE(published, fetched_at), seq)` repeated what `(feed, read, seq)` and
/// `(read, COALESCE(published, fetched_at), seq)` hold already, split by `read`; SQLite merges
/// two ordered arms of a `UNION ALL` under one `ORDER BY` (`MERGE (UNION ALL)` in `EXPLAIN
/// QUERY PLAN`), stepping each only as far as the merge takes, so a `LIMIT` reads no more than it
/// returns, and nothing is sorted. `ReadSplitOrderTests` checks each query's plan.
enum ReadSplitOrder {
    /// The feed `?1`'s entries in storage order: `columns` (which include `seq`), oldest first
    /// or newest first, the first `limit` (a number or a parameter) when it is given.
    static func feedStored(_ columns: String, newestFirst: Bool = false, limit: String? = nil) -> String {
        let arm = { (read: Int) in "SELECT \(columns) FROM entry WHERE feed = ?1 AND read = \(read)" }
        return arm(0) + " UNION ALL " + arm(1) + " ORDER BY seq" + (newestFirst ? " DESC" : "")
            + (limit.map { " LIMIT \($0)" } ?? "")
    }

    /// The largest number stored in the feed `?1` (NULL when it has none): one probe at the end
    /// of each arm.
    static let feedNewestNumber =
        "(SELECT MAX(newest) FROM (SELECT MAX(seq) AS newest FROM entry WHERE feed = ?1 AND read = 0"
        + " UNION ALL SELECT MAX(seq) FROM entry WHERE feed = ?1 AND read = 1))"
}
