import FeedModel
import FoundationEssentials

/// A result row of either store, read by column position: what a feed record and an entry are
/// read from, so that both stores read them by one set of rules.
package protocol StoreRow {
    /// The column as UTF-8 text (bytes stored as they came), nil for NULL.
    func text(_ column: Int32) -> String?
    /// An integer column: nil for NULL, a failure of the store naming the column for anything else.
    func integer(_ column: Int32) throws(FeedFailure) -> Int?
    func bool(_ column: Int32) -> Bool
    /// The column's name (or number) for messages.
    func name(_ column: Int32) -> String
}

extension StoreRow {
    /// `integer(column)` of a NOT NULL column, or a failure of the store naming it.
    package func requiredInteger(_ column: Int32) throws(FeedFailure) -> Int {
        guard let value = try integer(column) else { throw empty(column) }
        return value
    }

    /// `text(column)` of a NOT NULL column, or a failure of the store naming it.
    package func requiredText(_ column: Int32) throws(FeedFailure) -> String {
        guard let value = text(column) else { throw empty(column) }
        return value
    }

    private func empty(_ column: Int32) -> FeedFailure {
        .storeAccess("column \(name(column)) is empty: the store is damaged")
    }

    /// A feed record from the columns of `StoreColumns.record`, in that order. Every column is
    /// read as the type the schema gives it, or a failure of the store (74) that names it: a
    /// hand-edited or damaged store never turns into made-up values. A kind this feedcli does
    /// not know (a newer one's) is not a failure: the record carries it as `unknownKind`, so
    /// the feed is listed and can be removed, and only fetching it fails (`unknownKindFailure`).
    package func feedRecord() throws(FeedFailure) -> FeedRecord {
        let name = try requiredText(0)
        let kindName = try requiredText(2)
        let kind = FeedKind(rawValue: kindName)
        var expressions = FeedExpressions()
        if let stored = text(17) {
            guard let read = FeedExpressions(json: stored) else {
                throw FeedFailure.storeAccess("feed \(name) has unreadable jq expressions")
            }
            expressions = read
        }
        return FeedRecord(
            registration: FeedRegistration(
                name: name, url: try requiredText(1), kind: kind ?? .json,
                tokenEnv: text(3), expressions: expressions),
            nextIndex: try requiredInteger(4),
            validators: Validators(etag: text(5), lastModified: text(6)),
            retryNotBefore: text(7).flatMap(Timestamp.parse), resumeURL: text(8),
            lastFetchAt: text(9).flatMap(Timestamp.parse),
            lastSuccessAt: text(10).flatMap(Timestamp.parse),
            every: try integer(11).map { .seconds($0) },
            lastError: text(12), lastErrorCode: try integer(13).map { Int32(clamping: $0) },
            total: try requiredInteger(14), unread: try requiredInteger(15),
            lastReadID: text(16), lastSkipped: try requiredInteger(18),
            lastFiltered: try requiredInteger(19), lastKept: try requiredInteger(20),
            stream: text(22).flatMap(Timestamp.parse).map { StreamPosition(lastEventID: text(21), lastEventAt: $0) },
            unknownKind: kind == nil ? kindName : nil,
            retention: retention(kind: kind ?? .json), keepIsChosen: text(23) != nil,
            pruned: try requiredInteger(25), prunedUnread: try requiredInteger(26), title: text(27))
    }

    /// The record's `--keep` and `--remember` (columns 23 and 24). A feed that never chose keeps
    /// everything and remembers as its kind does. A spelling this feedcli cannot read (a newer
    /// one's) is read as what loses nothing: keep all, remember for ever.
    private func retention(kind: FeedKind) -> Retention {
        Retention(
            keep: text(23).map { Retention.Keep($0) ?? .all } ?? .all,
            remember: text(24).map { Retention.Remember($0) ?? .forever } ?? Retention.defaultRemember(for: kind))
    }

    /// An entry from the columns of `StoreColumns.entry`. Required columns are read as required:
    /// a NULL where the schema forbids one is a damaged store (74, naming the column), never an
    /// empty id or source made up.
    package func entry() throws(FeedFailure) -> Entry {
        Entry(
            feed: try requiredText(0), id: try requiredText(1), title: text(2), text: text(3),
            author: text(4), url: text(5), published: text(6), fetchedAt: try requiredText(7),
            read: bool(8), source: RawJSON(compactText: try requiredText(9)), seq: Int64(try requiredInteger(10)))
    }
}

/// The columns both stores read records and entries from, in the order `StoreRow` reads them by
/// position (positions, not names: a name lookup per column per row costs more than the rest
/// when listing a million entries).
package enum StoreColumns {
    /// A feed's record; `readIsTrue` is the engine's spelling of "read" in the read-cursor query.
    package static func record(readIsTrue: String) -> String {
        record(
            lastReadID:
                "(SELECT id FROM entry WHERE entry.feed = feed.name AND \(readIsTrue) ORDER BY seq DESC LIMIT 1)")
    }

    /// A feed's record with its read cursor (the id of the newest entry read) given by `lastReadID`.
    package static func record(lastReadID: String) -> String {
        """
        name, url, kind, token_env, next_index, etag, last_modified, retry_not_before, resume_url,
            last_fetch_at, last_success_at, every_seconds, last_error, last_error_code, entry_count, unread_count,
            \(lastReadID) AS last_read_id,
            expressions, last_skipped, last_filtered, last_kept, last_event_id, last_event_at,
            keep, remember, pruned, pruned_unread, title
        """
    }

    /// How many columns `record` has: a query's own columns after them start here.
    package static let recordColumnCount: Int32 = 28

    package static let entry = "feed, id, title, text, author, url, published, fetched_at, read, source, seq"

    /// How many columns `entry` has: a query's own columns after them start here.
    package static let entryColumnCount: Int32 = 11
}
