import FeedModel
import FoundationEssentials

/// Everything a command does with the state store, whichever engine holds it: the reactor's port
/// (`FeedStoring`) and the commands that change feeds and read state without the reactor. Two
/// stores implement it: `FeedStore` (a SQLite file, one machine) and `PostgresStore` (a
/// database several machines share); `StoreContractTests` holds them to one behaviour.
///
/// Threading: as `FeedStoring`: calls may block; make them from a thread that may.
public protocol StateStore: FeedStoring, EntrySearching {
    /// Where the store is, as a user may be shown it (a connection URL's password masked).
    var location: String { get }
    /// Whether a feed of that name is registered.
    func hasFeed(named name: String) throws(FeedFailure) -> Bool
    /// Registers a feed with its settings, in one transaction; an existing name is a usage error
    /// (64) unless `replace`, which keeps its entries and the settings not given, and forgets
    /// validators, retry time, backfill cursor and last error. A first feed of one's own retires
    /// the unused built-in `posts`.
    func addFeed(_ feed: FeedRegistration, settings: FeedSettings, replace: Bool) throws(FeedFailure)
    /// Registers new feeds, each with its settings, in one transaction (`feeds import`).
    func addFeeds(_ feeds: [(feed: FeedRegistration, settings: FeedSettings)]) throws(FeedFailure)
    func setTokenEnv(feed: String, _ variable: String?) throws(FeedFailure)
    func setEvery(feed: String, _ every: Duration?) throws(FeedFailure)
    /// Prunes every feed to what it keeps now (no step bound), forgets expired remembered ids,
    /// and rewrites the store to its smallest size (`feedcli store compact`). Returns what was
    /// pruned.
    func compact(now: Date) throws(FeedFailure) -> PruneOutcome
    func setExpressions(feed: String, _ expressions: FeedExpressions) throws(FeedFailure)
    /// Removes a feed and its entries; 66 when there is none.
    func removeFeed(named name: String) throws(FeedFailure)
    /// The entries `reference` names (a handle `@SEQ`, else an id), of `feed` when given.
    func entries(id reference: String, feed: String?) throws(FeedFailure) -> [Entry]
    /// Marks the entries `references` name read (or unread) in one transaction; 66 naming the
    /// first that names none (nothing changes then). Returns how many changed.
    func setRead(_ isRead: Bool, references: [String], feed: String?) throws(FeedFailure) -> Int
    /// Marks the entries numbered `numbers` of `feed` read; how many were unread.
    func markRead(feed: String, numbers: [Int64]) throws(FeedFailure) -> Int
    /// Marks every entry of `feeds` (all when empty) read; how many changed.
    func markAllRead(feeds: [String]) throws(FeedFailure) -> Int
    /// Streams the entries of `feeds` (all when empty) in `order`, oldest or newest first, one at
    /// a time (memory stays flat), until `body` returns false; `limit` keeps the newest N.
    func forEachEntry(
        feeds: [String], unreadOnly: Bool, limit: Int?, newestFirst: Bool, order: EntryOrder,
        _ body: (Entry) throws -> Bool
    ) throws(FeedFailure)
    /// Whether the store holds nothing of a user's: no entry, and no feed but an unused built-in
    /// `posts`. `store copy` writes only into such a store.
    func isEmpty() throws(FeedFailure) -> Bool
    /// Replaces the (empty) store's contents with `feeds`, the entries `entries` hands over and
    /// the `remembered` ids, in one transaction: `store copy`. Refused (64) when the store is not
    /// empty by then.
    func receiveCopy(
        feeds: [FeedRecord], remembered: [RememberedRow],
        entries: (_ each: (Entry) throws(FeedFailure) -> Void) throws(FeedFailure) -> Void
    ) throws(FeedFailure)
    /// Every remembered id (`RememberedID`), for `store copy`.
    func rememberedIDs() throws(FeedFailure) -> [RememberedRow]
    /// Called by a command when it is done with the store (SQLite bounds its journal here).
    func finish()
}

extension StateStore {
    /// Stored entries of one feed (all when nil), oldest first.
    public func forEachEntry(
        feed: String?, unreadOnly: Bool, limit: Int?, _ body: (Entry) throws -> Bool
    ) throws(FeedFailure) {
        try forEachEntry(
            feeds: feed.map { [$0] } ?? [], unreadOnly: unreadOnly, limit: limit, newestFirst: false,
            order: .stored, body)
    }

    public func forEachEntry(
        feeds: [String], unreadOnly: Bool, limit: Int?, newestFirst: Bool, _ body: (Entry) throws -> Bool
    ) throws(FeedFailure) {
        try forEachEntry(
            feeds: feeds, unreadOnly: unreadOnly, limit: limit, newestFirst: newestFirst, order: .stored, body)
    }
}

/// Rules both stores apply the same way.
public enum StoreRules {
    /// An id that several feeds hold names no entry by itself: a usage error (64) that names the
    /// feeds and asks for `--feed` (marking all of them would change feeds the user never meant).
    public static func refuseAmbiguous(_ reference: String, _ entries: [Entry]) throws(FeedFailure) {
        guard entries.count > 1 else { return }
        let feeds = entries.map(\.feed)
        throw .usage(
            "entry \(reference) is in \(feeds.count) feeds (\(feeds.joined(separator: ", "))); "
                + "name one with --feed, or use the entry's handle (@N)")
    }

    /// The entries `reference` names for `read`/`unread`, as found by the engine: none is 66
    /// naming the reference (and the feed), several feeds' is `refuseAmbiguous`'s 64.
    public static func entriesToMark(_ reference: String, feed: String?, found: [Entry]) throws(FeedFailure) -> [Entry]
    {
        guard !found.isEmpty else { throw .notFound("no entry \(reference)" + (feed.map { " in feed \($0)" } ?? "")) }
        try refuseAmbiguous(reference, found)
        return found
    }

    /// Whether `location` (a `--state` value) names a PostgreSQL database rather than a file.
    public static func isDatabaseURL(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// The refusal to write to a store whose schema a newer feedcli made (`version` migrations;
    /// this feedcli knows `known`): machines running two versions may share a store, and the
    /// older one must not write what the newer one's schema does not expect. Reading commands
    /// still read it.
    public static func newerSchema(_ location: String, version: Int, known: Int) -> String {
        "\(location) has schema version \(version), newer than this feedcli's \(known): a newer feedcli uses it; "
            + "upgrade feedcli to write to it (list, show and status still read it)"
    }

    /// The `store copy` refusal of a target that holds something.
    public static func notEmpty(_ location: String) -> FeedFailure {
        .usage(
            "\(location) is not empty: store copy writes only into a new store (a new file, or a database without feedcli's feeds)"
        )
    }
}

extension StateStore {
    /// A feed with no settings but its kind's defaults.
    public func addFeed(_ feed: FeedRegistration, replace: Bool) throws(FeedFailure) {
        try addFeed(feed, settings: FeedSettings(), replace: replace)
    }
}
