import FeedModel
import FeedStoreContract
import FoundationEssentials

/// Entries: delivery, reading and listing (as `FeedStore+Entries`, in PostgreSQL's SQL; storing
/// them is `PostgresStore+Commits`). Entry text goes as bytes (`bytea`), so every character
/// survives, NUL included.
extension PostgresStore {
    static let entryQuery = "SELECT \(StoreColumns.entry) FROM entry"

    public func oldestUnread(feed: String) throws(FeedFailure) -> Entry? {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> Entry? in
            let found = try db.execute(
                Self.entryQuery + " WHERE feed = $1 AND read = false ORDER BY seq LIMIT 1", [.text(feed)])
            return try found.rows.first?.entry()
        }
    }

    public func oldestUnread(feeds: [String]?) throws(FeedFailure) -> Entry? {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> Entry? in
            let order = " ORDER BY COALESCE(published, fetched_at), seq LIMIT 1"
            let found =
                if let feeds {
                    try db.execute(
                        Self.entryQuery + " WHERE read = false AND feed = ANY($1::text[])" + order,
                        [postgresArray(feeds)])
                } else {
                    try db.execute(Self.entryQuery + " WHERE read = false" + order)
                }
            return try found.rows.first?.entry()
        }
    }

    /// One statement, committed by itself (no BEGIN and COMMIT round trips: `next` pays for each),
    /// then the record as it is after it.
    public func markDelivered(feed: String, id: String) throws(FeedFailure) -> FeedRecord {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> FeedRecord in
            try db.execute("UPDATE entry SET read = true WHERE feed = $1 AND id = $2", [.text(feed), .bytes(id)])
            return try Self.record(db, name: feed)
        }
    }

    public func newestEntryID(feed: String) throws(FeedFailure) -> String? {
        try withConnection { (db: PostgresConnection) throws(FeedFailure) -> String? in
            try db.execute("SELECT id FROM entry WHERE feed = $1 ORDER BY seq DESC LIMIT 1", [.text(feed)]).rows.first?
                .text(0)
        }
    }

    /// Which of `ids` the feed holds or remembers (`RememberedID`): a statement for up to 1,000 ids at a time. One statement
    /// sees one snapshot by itself; only several share a transaction (two round trips more,
    /// which `next` and every batch of a sync would pay).
    public func knownIDs(feed: String, among ids: [String]) throws(FeedFailure) -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let lookUp = { (db: PostgresConnection) throws(FeedFailure) -> Set<String> in
            var stored = Set<String>()
            var rest = ids[...]
            while !rest.isEmpty {
                let chunk = Array(rest.prefix(Self.idsPerLookup))
                rest = rest.dropFirst(Self.idsPerLookup)
                let keys = "{" + chunk.map { String(RememberedID.key(feed: feed, id: $0)) }.joined(separator: ",") + "}"
                let found = try db.execute(
                    Self.knownIDsStatement, [.text(feed), postgresByteaArray(chunk), .text(keys)])
                for row in found.rows { if let id = row.text(0) { stored.insert(id) } }
            }
            return stored
        }
        return try ids.count <= Self.idsPerLookup ? withConnection(lookUp) : transaction(readOnly: true, lookUp)
    }

    /// The most ids one statement of `knownIDs` asks about.
    static let idsPerLookup = 1_000

    static let knownIDsStatement = """
        SELECT asked.id FROM unnest($2::bytea[], $3::bigint[]) AS asked (id, key)
        WHERE EXISTS (SELECT 1 FROM entry WHERE entry.feed = $1 AND entry.id = asked.id)
            OR EXISTS (SELECT 1 FROM remembered_id WHERE remembered_id.key = asked.key)
        """

    /// What a run does under a feed's lock once it has fetched one new entry (a `next`): which
    /// ids are stored, a number, the commit. Sent to be prepared with the lock (`attemptLockReading`),
    /// the server parses them while the run's request is out.
    static let statementsAfterAFetch: [(sql: String, parameters: Int)] = [
        (knownIDsStatement, 3),
        (reserveStatement, 1),
        (commitStatement(rows: 1), bookkeepingAssignments.count + entryColumnCount),
    ]

    public func entries(id reference: String, feed: String?) throws(FeedFailure) -> [Entry] {
        try transaction(readOnly: true) { (db: PostgresConnection) throws(FeedFailure) -> [Entry] in
            try Self.entries(db, reference: reference, feed: feed)
        }
    }

    static func entries(_ db: PostgresConnection, reference: String, feed: String?) throws(FeedFailure) -> [Entry] {
        if let seq = EntryReference.handle(reference) {
            let found = try db.execute(
                entryQuery + " WHERE seq = $1::bigint AND ($2::text IS NULL OR feed = $2)",
                [PostgresValue(seq), PostgresValue(feed)])
            if found.count > 0 { return try found.entries() }
        }
        return try db.execute(
            entryQuery + " WHERE id = $1 AND ($2::text IS NULL OR feed = $2) ORDER BY feed",
            [.bytes(reference), PostgresValue(feed)]
        ).entries()
    }

    public func setRead(_ isRead: Bool, references: [String], feed: String?) throws(FeedFailure) -> Int {
        try transaction { (db: PostgresConnection) throws(FeedFailure) -> Int in
            if let feed { _ = try Self.record(db, name: feed) }
            var changed = 0
            for reference in references {
                let found = try Self.entries(db, reference: reference, feed: feed)
                for entry in try StoreRules.entriesToMark(reference, feed: feed, found: found) {
                    changed += try db.execute(
                        "UPDATE entry SET read = $1::boolean WHERE seq = $2::bigint",
                        [PostgresValue(isRead), PostgresValue(entry.seq)]
                    ).changed
                }
            }
            return changed
        }
    }

    public func markRead(feed: String, numbers: [Int64]) throws(FeedFailure) -> Int {
        try transaction { (db: PostgresConnection) throws(FeedFailure) -> Int in
            _ = try Self.record(db, name: feed)
            let list = PostgresValue.text("{" + numbers.map(String.init).joined(separator: ",") + "}")
            return try db.execute(
                "UPDATE entry SET read = true WHERE feed = $1 AND seq = ANY($2::bigint[]) AND read = false",
                [.text(feed), list]
            ).changed
        }
    }

    public func markAllRead(feeds: [String]) throws(FeedFailure) -> Int {
        try transaction { (db: PostgresConnection) throws(FeedFailure) -> Int in
            guard !feeds.isEmpty else {
                return try db.execute("UPDATE entry SET read = true WHERE read = false").changed
            }
            var changed = 0
            for feed in feeds {
                _ = try Self.record(db, name: feed)
                changed += try db.execute(
                    "UPDATE entry SET read = true WHERE feed = $1 AND read = false", [.text(feed)]
                ).changed
            }
            return changed
        }
    }

    /// Streams entries through a cursor, 1,000 rows a fetch, in one read-only snapshot: memory
    /// stays flat however many there are, and a round trip carries many rows.
    public func forEachEntry(
        feeds: [String], unreadOnly: Bool, limit: Int?, newestFirst: Bool, order: EntryOrder,
        _ body: (Entry) throws -> Bool
    ) throws(FeedFailure) {
        var conditions: [String] = []
        var values: [PostgresValue] = []
        if !feeds.isEmpty {
            values.append(postgresArray(feeds))
            conditions.append("feed = ANY($\(values.count)::text[])")
        }
        if unreadOnly { conditions.append("read = false") }
        if let limit { values.append(PostgresValue(limit)) }
        let sql = EntryListing.query(
            where: conditions, order: order, newestFirst: newestFirst,
            limitParameter: limit == nil ? nil : "$\(values.count)::bigint")
        try transaction(readOnly: true) { (db: PostgresConnection) throws(FeedFailure) in
            try db.execute("DECLARE entries NO SCROLL CURSOR FOR " + sql, values)
            // The next batch is asked for before this one is read, so the server reads it
            // while the client decodes and prints (on a second core), not one after the other.
            let fetch = "FETCH 1000 FROM entries"
            try db.send(fetch)
            var pending = true
            fetching: while pending {
                let batch = try db.receive()
                pending = batch.count == 1_000
                if pending { try db.send(fetch) }
                for row in batch.rows {
                    let entry = try row.entry()
                    let goesOn: Bool
                    do {
                        goesOn = try body(entry)
                    } catch let failure as FeedFailure {
                        if pending { _ = try? db.receive() }
                        throw failure
                    } catch {
                        if pending { _ = try? db.receive() }
                        throw FeedFailure.storeAccess("\(error)")
                    }
                    if !goesOn { break fetching }
                }
            }
            if pending { _ = try db.receive() }
            try db.execute("CLOSE entries")
        }
    }
}

/// A PostgreSQL `bytea[]` literal of `values`, each sent as hex (`{"\\x6869"}`): text of any
/// bytes, NUL included, in one parameter.
func postgresByteaArray(_ values: [String]) -> PostgresValue {
    let digits = Array("0123456789abcdef".utf8)
    var literal: [UInt8] = [UInt8(ascii: "{")]
    for (index, value) in values.enumerated() {
        if index > 0 { literal.append(UInt8(ascii: ",")) }
        literal += Array(#""\\x"#.utf8)
        for byte in value.utf8 {
            literal.append(digits[Int(byte >> 4)])
            literal.append(digits[Int(byte & 0xF)])
        }
        literal.append(UInt8(ascii: "\""))
    }
    literal.append(UInt8(ascii: "}"))
    return .text(String(decoding: literal, as: UTF8.self))
}
