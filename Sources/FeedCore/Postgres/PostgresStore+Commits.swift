import FeedModel
import FeedStoreContract
import FoundationEssentials

/// Storing entries: a fetch's commit (its entries and bookkeeping in one statement where it can),
/// the commits of fetches that found nothing, and entry numbers reserved before printing.
extension PostgresStore {
    public func commitFetch(feed: String, entries: [Entry], _ commit: FetchCommit) throws(FeedFailure) -> CommitOutcome
    {
        var outcome = try commitEntries(feed: feed, entries: entries, commit)
        outcome.record = try retain(outcome.record, now: commit.fetchedAt, stored: outcome.entries.count)
        return outcome
    }

    private func commitEntries(feed: String, entries: [Entry], _ commit: FetchCommit) throws(FeedFailure)
        -> CommitOutcome
    {
        // Entries numbered by `number(_:backfill:)` (every printed one) keep their numbers; a
        // batch of up to 128 of them commits in one statement, atomic by itself.
        if entries.isEmpty {
            return try withConnection { (db: PostgresConnection) throws(FeedFailure) -> CommitOutcome in
                let update = Self.bookkeeping(feed: feed, commit)
                let record = try Self.updateRecord(
                    db, "UPDATE feed SET \(update.assignments) WHERE name = $17", update.values, name: feed)
                return CommitOutcome(entries: [], record: record)
            }
        }
        if entries.count <= Self.rowsInOneCommit, !entries.contains(where: { $0.seq == 0 || Self.hasLargeValues($0) }) {
            return try withConnection { (db: PostgresConnection) throws(FeedFailure) -> CommitOutcome in
                try Self.commitInOneStatement(db, feed: feed, entries: entries, commit)
            }
        }
        return try transaction { (db: PostgresConnection) throws(FeedFailure) -> CommitOutcome in
            var numbers = try Self.reserve(db, count: entries.count { $0.seq == 0 }, backfill: commit.isBackfill)
                .makeIterator()
            let numbered = entries.map { entry in
                var entry = entry
                if entry.seq == 0, let number = numbers.next() { entry.seq = number }
                entry.feed = feed
                return entry
            }
            let stored = try Self.insert(db, numbered, skippingStored: true)
            let inserted = numbered.filter { stored.contains($0.seq) }
            let update = Self.bookkeeping(feed: feed, commit)
            let record = try Self.updateRecord(
                db,
                """
                UPDATE feed SET \(update.assignments), entry_count = entry_count + $18::bigint,
                    unread_count = unread_count + $19::bigint
                WHERE name = $17
                """, update.values + [PostgresValue(inserted.count), PostgresValue(inserted.count { !$0.read })],
                name: feed)
            return CommitOutcome(entries: inserted, record: record)
        }
    }

    /// The most entries `commitFetch` stores in one statement.
    static let rowsInOneCommit = 128

    /// A batch's entries, its bookkeeping and the feed's counts in one statement: the rows
    /// inserted by a data-modifying `WITH`, the feed updated from what they were, the record and
    /// the numbers stored returned (its read cursor looks at the new rows too, which the
    /// statement's own snapshot of `entry` does not hold yet). One round trip where a
    /// transaction took four: `next` and every small batch of a sync pay for it.
    private static func commitInOneStatement(
        _ db: PostgresConnection, feed: String, entries: [Entry], _ commit: FetchCommit
    ) throws(FeedFailure) -> CommitOutcome {
        let values =
            bookkeeping(feed: feed, commit).values + entries.flatMap { entry in entryValues(entry, feed: feed) }
        let result = try db.execute(commitStatement(rows: entries.count), values)
        guard result.count == 1 else { throw FeedFailure.notFound("no feed named \(feed)") }
        let row = result.row(0)
        let stored = Set(
            (row.text(StoreColumns.recordColumnCount) ?? "").split(separator: ",").compactMap { Int64($0) })
        let inserted = entries.filter { stored.contains($0.seq) }.map { entry in
            var entry = entry
            entry.feed = feed
            return entry
        }
        return CommitOutcome(entries: inserted, record: try row.feedRecord())
    }

    /// The assignments of a successful fetch's `UPDATE feed`, with `$1` to `$16` and the feed's
    /// name `$17`: one text, so that the statements holding it are prepared once.
    static let bookkeepingAssignments = (
        sql: """
        last_fetch_at = $1, last_success_at = $1, last_error = NULL, last_error_code = NULL,
            retry_not_before = NULL, next_index = COALESCE($2::bigint, next_index),
            etag = CASE WHEN $3::boolean THEN $4 ELSE etag END,
            last_modified = CASE WHEN $3::boolean THEN $5 ELSE last_modified END,
            resume_url = CASE WHEN $6::boolean THEN $7 ELSE resume_url END,
            last_skipped = CASE WHEN $8::boolean THEN last_skipped ELSE 0 END + $9::bigint,
            last_filtered = CASE WHEN $10::boolean THEN last_filtered ELSE 0 END + $11::bigint,
            last_kept = CASE WHEN $12::boolean THEN last_kept ELSE 0 END + $13::bigint,
            last_event_id = CASE WHEN $14::boolean THEN $15 ELSE last_event_id END,
            last_event_at = CASE WHEN $14::boolean THEN $16 ELSE last_event_at END
        """, count: 17
    )

    /// `commitInOneStatement`'s statement for `rows` entries: the bookkeeping's values `$1` to
    /// `$17`, then each entry's `entryColumnCount`.
    static func commitStatement(rows: Int) -> String {
        let values = (0..<rows).map { row in
            entryPlaceholders(from: bookkeepingAssignments.count + 1 + row * entryColumnCount)
        }
        let lastRead = """
            (SELECT id FROM (SELECT id, seq FROM entry WHERE entry.feed = feed.name AND read
                UNION ALL SELECT id, seq FROM added WHERE read) AS read_entries ORDER BY seq DESC LIMIT 1)
            """
        return """
            WITH added AS (
                INSERT INTO entry (\(entryColumns))
                VALUES \(values.joined(separator: ", ")) ON CONFLICT (feed, id) DO NOTHING RETURNING seq, id, read)
            UPDATE feed SET \(bookkeepingAssignments.sql),
                entry_count = entry_count + (SELECT COUNT(*) FROM added),
                unread_count = unread_count + (SELECT COUNT(*) FROM added WHERE NOT read)
            WHERE name = $17
            RETURNING \(StoreColumns.record(lastReadID: lastRead)), (SELECT string_agg(seq::text, ',') FROM added)
            """
    }

    /// The columns an entry is inserted with, in order (`search`: `PostgresSearch`).
    static let entryColumns = "seq, feed, id, title, text, author, url, published, fetched_at, read, source, search"
    static let entryColumnCount = 12

    /// `(…)` of one entry's placeholders, numbered from `first`, with their casts.
    static func entryPlaceholders(from first: Int) -> String {
        let casts = [0: "::bigint", 9: "::boolean", 11: "::tsvector"]
        return "("
            + (0..<entryColumnCount).map { "$\(first + $0)" + (casts[$0] ?? "") }.joined(separator: ", ") + ")"
    }

    /// An entry's column values, in `entryColumns`' order; `indexed`: the entry its search
    /// index is made of (the whole one, when this one is its first part).
    static func entryValues(_ entry: Entry, feed: String, indexed: Entry? = nil) -> [PostgresValue] {
        var whole = indexed ?? entry
        whole.feed = feed
        return [
            PostgresValue(entry.seq), .text(feed), .bytes(entry.id), PostgresValue(bytes: entry.title),
            PostgresValue(bytes: entry.text), PostgresValue(bytes: entry.author), PostgresValue(bytes: entry.url),
            PostgresValue(entry.published), .text(entry.fetchedAt), PostgresValue(entry.read), .text(entry.source.text),
            .text(PostgresSearch.vector(SearchDocument(whole))),
        ]
    }

    /// Inserts `entries` (each with its number and feed), several rows a statement, and returns
    /// the numbers of those stored; with `skippingStored`, an id the feed holds (or one repeated
    /// among them) is skipped rather than a failure.
    static func insert(_ db: PostgresConnection, _ entries: [Entry], skippingStored: Bool) throws(FeedFailure) -> Set<
        Int64
    > {
        var stored = Set<Int64>()
        let cut = entries.map(firstParts(of:))
        // Cut entries are indexed whole.
        var whole: [Int64: Entry] = [:]
        for (entry, original) in zip(cut, entries) where !entry.rest.isEmpty { whole[original.seq] = original }
        var rest = cut.map(\.entry)[...]
        while !rest.isEmpty {
            // A few statement sizes, so that a connection prepares at most four of them.
            let size = [128, 32, 8, 1].first { $0 <= rest.count } ?? 1
            let chunk = rest.prefix(size)
            rest = rest.dropFirst(size)
            let rows = (0..<size).map { row in entryPlaceholders(from: 1 + row * entryColumnCount) }
            let sql = """
                INSERT INTO entry (\(entryColumns))
                VALUES \(rows.joined(separator: ", "))\(skippingStored ? " ON CONFLICT (feed, id) DO NOTHING" : "") RETURNING seq
                """
            let values = chunk.flatMap { entry in
                entryValues(entry, feed: entry.feed, indexed: whole[entry.seq])
            }
            for row in try db.execute(sql, values).rows { stored.insert(Int64(try row.requiredInteger(0))) }
        }
        for (entry, later) in cut where !later.isEmpty && stored.contains(entry.seq) {
            for parts in later { try parts.append(db, feed: entry.feed, seq: entry.seq) }
        }
        return stored
    }

    /// The feed's side of a successful fetch (see `FeedStore.commitBookkeeping`): the
    /// assignments of an `UPDATE feed … WHERE name = $17` (`bookkeepingAssignments`) and their
    /// values, `$1` to `$17`.
    private static func bookkeeping(feed: String, _ commit: FetchCommit) -> (
        assignments: String, values: [PostgresValue]
    ) {
        let (resumeChanges, resumeURL) = commit.resumeColumn
        let skipped = commit.skipped.column
        let filtered = commit.filtered.column
        let kept = commit.kept.column
        return (
            bookkeepingAssignments.sql,
            [
                .text(Timestamp.format(commit.fetchedAt)), PostgresValue(commit.nextIndex),
                PostgresValue(commit.validators != nil), PostgresValue(commit.validators?.etag),
                PostgresValue(commit.validators?.lastModified),
                PostgresValue(resumeChanges), PostgresValue(resumeURL), PostgresValue(skipped.adds),
                PostgresValue(skipped.count),
                PostgresValue(filtered.adds), PostgresValue(filtered.count), PostgresValue(kept.adds),
                PostgresValue(kept.count),
                PostgresValue(commit.stream != nil), PostgresValue(commit.stream?.lastEventID),
                PostgresValue(commit.stream.map { Timestamp.format($0.lastEventAt) }),
                .text(feed),
            ]
        )
    }

    public func commitNothingNew(_ fetches: [(feed: String, commit: FetchCommit)]) throws(FeedFailure) -> [Result<
        FeedRecord, FeedFailure
    >] {
        let apply = { (db: PostgresConnection) throws(FeedFailure) -> [Result<FeedRecord, FeedFailure>] in
            var results: [Result<FeedRecord, FeedFailure>] = []
            for fetch in fetches {
                do throws(FeedFailure) {
                    let update = Self.bookkeeping(feed: fetch.feed, fetch.commit)
                    let sql = "UPDATE feed SET \(update.assignments) WHERE name = $17"
                    results.append(.success(try Self.updateRecord(db, sql, update.values, name: fetch.feed)))
                } catch {
                    // Only a feed gone since its fetch fails alone; the server's failures abort
                    // the transaction, and so the whole commit.
                    guard case .notFound = error else { throw error }
                    results.append(.failure(error))
                }
            }
            return results
        }
        // One feed's is one statement, atomic by itself; several share a transaction.
        let results = try fetches.count == 1 ? withConnection(apply) : transaction(apply)
        return try zip(fetches, results).map { fetch, result throws(FeedFailure) in
            guard case .success(let record) = result else { return result }
            return .success(try retain(record, now: fetch.commit.fetchedAt, stored: 0))
        }
    }

    public func number(_ entries: [Entry], backfill: Bool) throws(FeedFailure) -> [Entry] {
        guard !entries.isEmpty else { return entries }
        // One statement, atomic by itself: no transaction around it.
        let numbers = try withConnection { (db: PostgresConnection) throws(FeedFailure) -> [Int64] in
            try Self.reserve(db, count: entries.count, backfill: backfill)
        }
        return zip(entries, numbers).map { entry, number in
            var entry = entry
            entry.seq = number
            return entry
        }
    }

    /// `count` entry numbers, oldest entry first, under the row lock of `entry_numbers` (runs on
    /// every machine take turns for a moment), respecting rows stored some other way.
    static func reserve(_ db: PostgresConnection, count: Int, backfill: Bool) throws(FeedFailure) -> [Int64] {
        guard count > 0 else { return [] }
        let n = Int64(count)
        if backfill {
            let floor =
                try db.execute(
                    """
                    UPDATE entry_numbers SET floor = LEAST(floor, COALESCE((SELECT MIN(seq) FROM entry), 0), 0) - $1::bigint RETURNING floor
                    """, [PostgresValue(n)]
                ).firstInteger() ?? -n
            return Array(floor..<(floor + n))
        }
        let next = try db.execute(reserveStatement, [PostgresValue(n)]).firstInteger() ?? n + 1
        return Array((next - n)..<next)
    }

    static let reserveStatement = """
        UPDATE entry_numbers SET next = GREATEST(next, COALESCE((SELECT MAX(seq) FROM entry), 0) + 1) + $1::bigint RETURNING next
        """
}
