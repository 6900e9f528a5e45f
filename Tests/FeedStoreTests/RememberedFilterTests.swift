import CSQLite
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedStore

/// An open SQLite store tells an id that is not remembered by a filter in memory
/// (`RememberedFilter`), never by a probe of `remembered_id`; the filter answers only while it
/// is current, so an id another run (or another open store) remembered is still known, and a
/// commit that rolls back leaves no filter that believes it.
@Suite("the remembered ids' filter, on SQLite", .timeLimit(.minutes(2)))
struct RememberedFilterTests {
    @Test func aBuiltFilterHoldsEveryKeyAndFewOthers() {
        let filter = RememberedFilter()
        let held = (0..<50_000).map { RememberedID.key(feed: "a", id: "held-\($0)") }
        filter.build(count: held.count, mark: 7) { add in held.forEach(add) }
        #expect(held.allSatisfy { filter.mayHold($0, mark: 7) }, "never a held key said not held")
        let others = (0..<50_000).map { RememberedID.key(feed: "a", id: "other-\($0)") }
        let maybes = others.filter { filter.mayHold($0, mark: 7) }.count
        // Twelve bits a key, filled to half its capacity: well under one in a hundred.
        #expect(maybes < others.count / 100, "\(maybes) of \(others.count) keys not held said maybe")
    }

    @Test func atAnotherMarkEveryKeyIsMaybeAndProbesCountTowardsABuild() {
        let filter = RememberedFilter()
        #expect(!filter.shouldBuild(), "nothing probed yet")
        filter.build(count: 0, mark: 7) { _ in }
        let key = RememberedID.key(feed: "a", id: "1")
        #expect(!filter.mayHold(key, mark: 7))
        #expect(filter.mayHold(key, mark: 8), "another run remembered since: not current")
        for _ in 2..<(4096 / RememberedFilter.probeWeight) { _ = filter.mayHold(key, mark: 8) }
        #expect(!filter.shouldBuild(), "255 probes cost less than a scan")
        _ = filter.mayHold(key, mark: 8)
        #expect(filter.shouldBuild(), "256 probes of every generation: a scan costs less than more of them")
    }

    @Test func aCommitKeepsTheFilterCurrentOnlyFromTheMarkItHad() {
        let filter = RememberedFilter()
        filter.build(count: 0, mark: 7) { _ in }
        let one = RememberedID.key(feed: "a", id: "1")
        let two = RememberedID.key(feed: "a", id: "2")
        filter.added([one], previous: 7, mark: 8)
        #expect(filter.mayHold(one, mark: 8) && !filter.mayHold(two, mark: 8))
        filter.added([two], previous: 9, mark: 10)
        #expect(filter.mayHold(one, mark: 10) && filter.mayHold(two, mark: 10), "not current: all maybe")
        #expect(filter.mayHold(RememberedID.key(feed: "a", id: "3"), mark: 8), "nor at its old mark")
    }

    @Test func aFilterFullToItsCapacityIsNotCurrent() {
        let filter = RememberedFilter()
        filter.build(count: 0, mark: 1) { _ in }
        let keys = (0..<65_537).map { RememberedID.key(feed: "a", id: String($0)) }
        filter.added(Array(keys.prefix(65_536)), previous: 1, mark: 2)
        #expect(!filter.mayHold(RememberedID.key(feed: "b", id: "x"), mark: 2), "full, still current")
        filter.added([keys[65_536]], previous: 2, mark: 3)
        #expect(filter.mayHold(RememberedID.key(feed: "b", id: "x"), mark: 3), "past its capacity")
    }

    @Test func anIDAnotherOpenStoreRemembersIsKnown() async throws {
        let path = temporaryStorePath()
        let first = try KeepingOne.open(at: path).store
        _ = try KeepingOne.commit(first, (1...10).map(String.init))
        // Enough new ids that the first store builds its filter, then one of its own steps.
        let fresh = (0..<5000).map { "fresh-\($0)" }
        #expect(try first.knownIDs(feed: "a", among: fresh).isEmpty)
        #expect(try first.knownIDs(feed: "a", among: ["5", "new"]) == ["5"])
        _ = try KeepingOne.commit(first, ["11"])
        #expect(try first.rememberedFilter.currentMark == mark(path), "its own step keeps it current")
        #expect(try first.knownIDs(feed: "a", among: ["10", "new"]) == ["10"])
        // Another open store (another run) prunes 11…19: the first knows them.
        let second = try FeedStore.open(at: path)
        _ = try KeepingOne.commit(second, (12...20).map(String.init))
        #expect(try first.knownIDs(feed: "a", among: ["11", "15", "19", "20", "new"]) == ["11", "15", "19", "20"])
    }

    @Test func aRolledBackCommitLeavesTheFilterNotCurrent() async throws {
        let path = temporaryStorePath()
        let store = try KeepingOne.open(at: path).store
        _ = try KeepingOne.commit(store, ["1", "2"])
        _ = try store.knownIDs(feed: "a", among: (0..<5000).map { "fresh-\($0)" })
        _ = try store.knownIDs(feed: "a", among: ["new"])
        let before = try mark(path)
        #expect(store.rememberedFilter.currentMark == before, "built")
        struct Abandoned: Error {}
        #expect(throws: (any Error).self) {
            try store.write { db in
                try store.markRemembered(db, [RememberedID.key(feed: "a", id: "9")])
                throw Abandoned()
            }
        }
        #expect(try mark(path) == before, "the mark rolled back")
        #expect(
            store.rememberedFilter.currentMark != before,
            "so the filter, holding a key the store does not, is not current")
        #expect(try store.knownIDs(feed: "a", among: ["1", "9"]) == ["1"])
        #expect(store.rememberedFilter.currentMark == nil, "seen at the store's mark: not current")
    }

    /// The store's mark of remembered ids, read from the file.
    private func mark(_ path: String) throws -> Int64? {
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        return try connection.statement("SELECT token FROM remembered_mark").first([]) { $0.int64(0) }
    }
}
