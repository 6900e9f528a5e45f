/// Where a SQLite store files a remembered id (schema v17): in the *generation* its time ends in,
/// a row `(expires, key)` of the table `remembered`, whose key is that pair (WITHOUT ROWID: one
/// b-tree, about 20 bytes an id).
///
/// `expires` is the id's time (`until`) rounded up to a multiple of a power of two seconds, the
/// largest that is at most 1/64 of the time it is remembered for (a second at least): so a
/// feed's ids live in 64 to 128 generations whatever its `--remember`, and an id is known for at
/// least its time and at most 1/64 of it longer (`RememberedID.forgottenLateAtMost`).
///
/// Why: the ids a prune step remembers are random keys. Filed by key alone (`remembered_id`
/// until v16), each landed in a page of its own of a table that a stream's `--remember` window
/// fills with a million ids, and each forgotten one again; staging them and moving a range of the
/// key space a step (v14) halved that, at the cost of moving every id twice. Filed by
/// generation, a step's ids go into the newest generation's few pages (the ids of the last
/// 1/64 of the window), and forgetting takes the oldest generation whole, pages at a time. What
/// it costs: telling whether one id is remembered is a probe of each live generation (`probe`),
/// which the open store's `RememberedFilter` spares nearly every id.
enum RememberedGeneration {
    /// The generation of ids remembered for ever: never forgotten.
    static let forever = Int64.max

    /// The generation of an id remembered at `now` until `until` (seconds since 1970; nil: for ever).
    static func expiry(until: Int64?, now: Int64) -> Int64 {
        guard let until else { return forever }
        let grain = grain(span: until.subtractingReportingOverflow(now).partialValue)
        // Rounded up to the grain (division truncates toward zero, which rounds a time before
        // 1970 up already); a time too near the end of time is its own generation.
        let quotient = until / grain
        let (rounded, overflow) = (until % grain > 0 ? quotient + 1 : quotient).multipliedReportingOverflow(by: grain)
        return overflow ? until : rounded
    }

    /// The power of two seconds generations are cut in for ids remembered `span` seconds: the
    /// largest at most `span` / 64, one at least.
    static func grain(span: Int64) -> Int64 {
        var grain: Int64 = 1
        while grain <= (Int64.max / 128), grain * 128 <= span { grain *= 2 }
        return grain
    }

    /// Whether the id with `key` is remembered: one look in each generation, oldest first,
    /// stepping from one generation to the next through the table's own order (two seeks a
    /// generation, whatever it holds). Parameter: the key.
    static let probe = """
        WITH RECURSIVE live(expires) AS (
            SELECT MIN(expires) FROM remembered
            UNION ALL SELECT (SELECT MIN(expires) FROM remembered WHERE expires > live.expires) FROM live
            WHERE live.expires IS NOT NULL
        )
        SELECT 1 FROM live JOIN remembered ON remembered.expires = live.expires AND remembered.key = ?1 LIMIT 1
        """
}
