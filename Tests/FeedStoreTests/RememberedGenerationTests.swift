import CSQLite
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedStore

/// On SQLite a remembered id is filed in the generation its time ends in (`RememberedGeneration`):
/// generations are cut at 1/64 of the time ids are remembered, a step's ids go into one, an id
/// is known in any, and the oldest generation is forgotten once it has ended, a bounded step a
/// commit, never before its ids' time.
@Suite("remembered ids in generations, on SQLite", .timeLimit(.minutes(2)))
struct RememberedGenerationTests {
    private let now = KeepingOne.now

    @Test func generationsAreCutAtAPowerOfTwoNoMoreThanASixtyFourthOfTheTime() {
        #expect(RememberedGeneration.grain(span: 0) == 1)
        #expect(RememberedGeneration.grain(span: 60) == 1, "a minute: seconds")
        #expect(RememberedGeneration.grain(span: 128) == 2)
        #expect(RememberedGeneration.grain(span: 90 * 86_400) == 65_536, "ninety days: 18 hours and more")
        #expect(RememberedGeneration.grain(span: .max) == Int64(1) << 56)
        #expect(RememberedGeneration.grain(span: -5) == 1)
        let moment: Int64 = 1_763_726_400
        for span: Int64 in [0, 1, 59, 60, 3_600, 86_400, 90 * 86_400, 10 * 365 * 86_400] {
            let until = moment + span + 7
            let expires = RememberedGeneration.expiry(until: until, now: moment)
            let grain = RememberedGeneration.grain(span: span + 7)
            #expect(expires >= until && expires - until < grain && expires % grain == 0, "\(span)")
            #expect(expires - until <= RememberedID.forgottenLateAtMost(rememberedFor: span + 7), "\(span)")
        }
        #expect(RememberedGeneration.expiry(until: nil, now: moment) == RememberedGeneration.forever)
        #expect(RememberedGeneration.expiry(until: -9, now: -300) == -8, "before 1970, rounded up too")
        #expect(RememberedGeneration.expiry(until: .max - 1, now: 0) == .max - 1, "no overflow at the end of time")
    }

    @Test func aStepsIDsGoIntoOneGenerationAndAreKnownThere() async throws {
        let (path, store) = try KeepingOne.open(remembering: 3600)
        _ = try KeepingOne.commit(store, (1...400).map(String.init))
        #expect(try generations(path) == [400 - 1], "one step, one generation")
        _ = try KeepingOne.commit(store, ["401"], at: now.addingTimeInterval(120))
        #expect(try generations(path) == [399, 1], "a step two minutes later: the next generation")
        #expect(try store.knownIDs(feed: "a", among: (1...402).map(String.init)).count == 401)
        #expect(try store.rememberedIDs().count == 400, "a copy carries every generation's")
        // Another open store has no filter: each id is probed in every generation.
        let other = try FeedStore.open(at: path)
        #expect(try other.knownIDs(feed: "a", among: ["1", "400", "402"]) == ["1", "400"])
    }

    @Test func aGenerationIsForgottenOnlyOnceItHasEndedAndInBoundedSteps() async throws {
        let (path, store) = try KeepingOne.open(remembering: 60)
        // Three steps of the most a step takes: 3,072 ids in the minute's generation.
        let ids = (1...(3 * PruneStep.most + 1)).map(String.init)
        for start in stride(from: 0, to: ids.count - 1, by: PruneStep.most) {
            _ = try KeepingOne.commit(store, Array(ids[start..<min(ids.count, start + PruneStep.most + 1)]))
        }
        #expect(try generations(path) == [3 * PruneStep.most])
        let end = now.addingTimeInterval(60)
        _ = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: end))
        #expect(try generations(path) == [3 * PruneStep.most], "known for its minute")
        // Past the generation's end: a commit forgets a step's worth, the oldest first.
        let late = now.addingTimeInterval(TimeInterval(60 + RememberedID.forgottenLateAtMost(rememberedFor: 60) + 1))
        _ = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: late))
        #expect(try generations(path) == [2 * PruneStep.most])
        for _ in 0..<3 { _ = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: late)) }
        #expect(try generations(path) == [])
        #expect(try store.knownIDs(feed: "a", among: ["1", ids[ids.count - 1]]) == [ids[ids.count - 1]])
    }

    @Test func compactForgetsEveryEndedGeneration() async throws {
        let (path, store) = try KeepingOne.open(remembering: 60)
        _ = try KeepingOne.commit(store, (1...3000).map(String.init))
        _ = try store.compact(now: now.addingTimeInterval(3600))
        #expect(try generations(path) == [])
    }

    @Test func probingReadsEachGenerationByItsKey() throws {
        let (path, _) = try KeepingOne.open(remembering: 60)
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        var plan: [String] = []
        try connection.statement("EXPLAIN QUERY PLAN " + RememberedGeneration.probe).forEach([.integer(7)]) {
            plan.append($0.string(3))
            return true
        }
        #expect(!plan.contains { $0.hasPrefix("SCAN remembered") }, "\(plan)")
        #expect(plan.contains { $0.contains("SEARCH remembered USING PRIMARY KEY (expires=? AND key=?)") }, "\(plan)")
    }

    /// A store as v16 left it (ids by key in `remembered_id`, some staged, one in both, one for
    /// ever) is upgraded by the next open: every id known, in a generation no earlier than its
    /// time, and the old tables gone.
    @Test func aStoreOfVersion16KeepsEveryRememberedIDInAGeneration() throws {
        let (path, store) = try KeepingOne.open(remembering: 3600)
        _ = try KeepingOne.commit(store, ["1", "2", "3"])
        let key = { (id: String) in RememberedID.key(feed: "a", id: id) }
        let until = Int64(now.timeIntervalSince1970) + 3600
        do {
            let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE)
            try connection.execute(
                """
                BEGIN IMMEDIATE;
                DROP TABLE remembered;
                CREATE TABLE remembered_id (key INTEGER PRIMARY KEY, until INTEGER);
                CREATE INDEX remembered_id_by_until ON remembered_id (until) WHERE until IS NOT NULL;
                CREATE TABLE remembered_staged (key INTEGER PRIMARY KEY, until INTEGER);
                INSERT INTO remembered_id VALUES (\(key("1")), \(until)), (\(key("2")), \(until - 5));
                INSERT INTO remembered_staged VALUES (\(key("2")), \(until)), (\(key("9")), NULL);
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v17:%';
                COMMIT;
                """)
        }
        let upgraded = try FeedStore.open(at: path)
        #expect(try upgraded.knownIDs(feed: "a", among: ["1", "2", "3", "4", "9"]) == ["1", "2", "3", "9"])
        let rows = try upgraded.rememberedIDs()
        #expect(rows.map(\.key).sorted() == [key("1"), key("2"), key("9")].sorted())
        for row in rows where row.key != key("9") {
            #expect(try #require(row.until) >= until, "no earlier than its time")
        }
        #expect(rows.first { $0.key == key("9") }?.until == nil, "for ever stays for ever")
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        #expect(
            try connection.statement(
                "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('remembered_id', 'remembered_staged')"
            ).first { $0.int64(0) } == 0)
    }

    /// How many ids each generation holds, oldest first.
    private func generations(_ path: String) throws -> [Int] {
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        var counts: [Int] = []
        try connection.statement("SELECT COUNT(*) FROM remembered GROUP BY expires ORDER BY expires").forEach {
            counts.append(Int($0.int64(0)))
            return true
        }
        return counts
    }
}
