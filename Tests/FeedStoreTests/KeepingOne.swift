import FeedStoreContract
import FeedStoreTesting
import Foundation

@testable import FeedModel
@testable import FeedStore

/// The SQLite store the remembered-id tests start from: feed `a` keeps its newest entry, so each
/// commit prunes what came before and remembers its ids.
enum KeepingOne {
    /// Noon on 2026-11-21, the time of the commits unless a test says otherwise.
    static let now = Date(timeIntervalSince1970: 1_763_726_400)

    /// A store at `path` (a new one when nil) whose feed `a` remembers pruned ids `seconds`.
    static func open(at path: String = temporaryStorePath(), remembering seconds: Int64 = 3600) throws -> (
        path: String, store: FeedStore
    ) {
        let store = try FeedStore.open(at: path)
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        try store.setRetention(feed: "a", Retention(keep: .newest(1), remember: .for(.seconds(seconds))))
        return (path, store)
    }

    /// Commits entries `ids` of feed `a`, stored at `time`.
    @discardableResult
    static func commit(_ store: FeedStore, _ ids: [String], at time: Date = now) throws -> FeedRecord {
        let entries = ids.map { id in
            var entry = Entry.sample(id, feed: "a")
            entry.fetchedAt = Timestamp.format(time)
            return entry
        }
        return try store.commitFetch(feed: "a", entries: entries, FetchCommit(fetchedAt: time)).record
    }
}
