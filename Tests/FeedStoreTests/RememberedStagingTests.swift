import CSQLite
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedStore

/// On SQLite a prune step's remembered ids are staged in a small table and move into the large
/// one an eighth of the key space a step (`FeedStore.mergeStaged`): an id is known, expires, is
/// copied and compacted wherever it is, and every staged id moves on within eight steps.
@Suite("remembered ids staged, on SQLite", .timeLimit(.minutes(2)))
struct RememberedStagingTests {
    /// Noon on 2026-11-21, the time of the commits below.
    private let now = Date(timeIntervalSince1970: 1_763_726_400)

    @Test func theEighthsCoverTheKeySpaceEachKeyOnce() {
        let ranges = RetentionMemo.stagedRanges
        #expect(ranges.count == 8)
        #expect(ranges.first?.lowerBound == .min && ranges.last?.upperBound == .max)
        for (lower, upper) in zip(ranges, ranges.dropFirst()) {
            #expect(lower.upperBound + 1 == upper.lowerBound, "no key between two eighths, none in both")
        }
    }

    @Test func aStagedIDIsKnownAndEveryOneMovesOnWithinEightSteps() async throws {
        let (path, store) = try storeKeepingOne(remembering: 3600)
        // One step prunes 399 (ids 1…399): their keys fall in every eighth; one eighth moves on.
        _ = try commit(store, (1...400).map(String.init))
        var (staged, moved) = try rows(path)
        #expect(staged + moved == 399)
        #expect(staged > 0 && moved > 0 && moved < 399 / 2, "one eighth moved: \(moved)")
        #expect(try store.knownIDs(feed: "a", among: (1...401).map(String.init)).count == 400, "staged or not")
        // Seven more steps (one id each) move the other seven eighths: what is staged is theirs.
        for id in 401...407 { _ = try commit(store, [String(id)]) }
        (staged, moved) = try rows(path)
        #expect(staged + moved == 406)
        #expect(staged <= 7, "only ids of the last steps wait: \(staged)")
        #expect(try store.rememberedIDs().count == 406, "a copy carries both")
        #expect(try store.knownIDs(feed: "a", among: (1...408).map(String.init)).count == 407)
    }

    @Test func stagedIDsExpireAndCompactMovesThemAll() async throws {
        let (path, store) = try storeKeepingOne(remembering: 60)
        _ = try commit(store, (1...50).map(String.init))
        #expect(try rows(path).staged > 0)
        _ = try store.compact(now: now)
        #expect(try rows(path) == (0, 49), "compact moves every staged id")
        _ = try commit(store, ["51", "52"])
        let (staged, moved) = try rows(path)
        #expect(staged + moved == 51)
        // After the minute, a commit forgets every expired id, staged or not.
        _ = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: now.addingTimeInterval(61)))
        _ = try store.compact(now: now.addingTimeInterval(61))
        #expect(try rows(path) == (0, 0))
        #expect(try store.knownIDs(feed: "a", among: ["1", "51", "52"]) == ["52"], "only the one held")
    }

    /// A new store whose feed `a` keeps its newest entry and remembers pruned ids `seconds`.
    private func storeKeepingOne(remembering seconds: Int64) throws -> (path: String, store: FeedStore) {
        let path = temporaryStorePath()
        let store = try FeedStore.open(at: path)
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        try store.setRetention(feed: "a", Retention(keep: .newest(1), remember: .for(.seconds(seconds))))
        return (path, store)
    }

    private func commit(_ store: FeedStore, _ ids: [String]) throws -> FeedRecord {
        let entries = ids.map { id in
            var entry = Entry.sample(id, feed: "a")
            entry.fetchedAt = Timestamp.format(now)
            return entry
        }
        return try store.commitFetch(feed: "a", entries: entries, FetchCommit(fetchedAt: now)).record
    }

    /// How many remembered ids are staged, and how many have moved on.
    private func rows(_ path: String) throws -> (staged: Int64, moved: Int64) {
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        let count = { (table: String) throws -> Int64 in
            try connection.statement("SELECT COUNT(*) FROM \(table)").first([]) { $0.int64(0) } ?? -1
        }
        return (try count("remembered_staged"), try count("remembered_id"))
    }
}
