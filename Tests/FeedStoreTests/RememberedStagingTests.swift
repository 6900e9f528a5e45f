import CSQLite
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedStore

/// On SQLite a prune step's remembered ids are staged in a small table and move into the large
/// one a range of the key space a step (`FeedStore.mergeStaged`): an id is known, expires, is
/// copied and compacted wherever it is, every staged id moves on within a round of the ranges,
/// and the expired ids of a step's range are forgotten with it.
@Suite("remembered ids staged, on SQLite", .timeLimit(.minutes(2)))
struct RememberedStagingTests {
    private let now = KeepingOne.now

    @Test func theRangesAreAboutTheSquareRootOfTheIDsInSteps() {
        #expect(RetentionMemo.rangeCount(rememberedCount: 0) == 8)
        #expect(RetentionMemo.rangeCount(rememberedCount: 100_000) == 8)
        #expect(RetentionMemo.rangeCount(rememberedCount: 300_000) == 16)
        #expect(RetentionMemo.rangeCount(rememberedCount: 1_000_000) == 32)
        #expect(RetentionMemo.rangeCount(rememberedCount: .max) == 1024)
        #expect(RetentionMemo.rangeCount(rememberedCount: -1) == 8)
    }

    @Test(arguments: [0, 300_000, 1_000_000, Int64.max])
    func aRoundOfRangesCoversTheKeySpaceEachKeyOnce(count: Int64) {
        let memo = RetentionMemo()
        let rounds = RetentionMemo.rangeCount(rememberedCount: count)
        let ranges = (0..<rounds).map { _ in memo.nextStagedRange(rememberedCount: count) }
        #expect(ranges.first?.lowerBound == .min && ranges.last?.upperBound == .max)
        for (lower, upper) in zip(ranges, ranges.dropFirst()) {
            #expect(lower.upperBound + 1 == upper.lowerBound, "no key between two ranges, none in both")
        }
        #expect(memo.nextStagedRange(rememberedCount: count) == ranges.first, "round the circle")
    }

    @Test func whenTheRangesWidenOrNarrowNoKeyIsLeftOut() {
        let memo = RetentionMemo()
        // Counts that change the circle from 8 ranges to 1,024 and back, step by step.
        let counts: [Int64] = [0, 0, 1_000_000, .max, .max, 300_000, 0, .max, 0, 0, 0, 0, 0, 0, 0, 0]
        var previous: ClosedRange<Int64>?
        for count in counts {
            let range = memo.nextStagedRange(rememberedCount: count)
            if let previous, previous.upperBound < .max {
                #expect(range.lowerBound <= previous.upperBound + 1, "a gap after \(previous): \(range)")
                #expect(range.upperBound > previous.upperBound, "the circle goes on")
            }
            previous = range
        }
    }

    @Test func aStagedIDIsKnownAndEveryOneMovesOnWithinARound() async throws {
        let (path, store) = try KeepingOne.open(remembering: 3600)
        // One step prunes 399 (ids 1…399): their keys fall in every eighth (a small table's
        // ranges); one eighth moves on.
        _ = try KeepingOne.commit(store, (1...400).map(String.init))
        var (staged, moved) = try rows(path)
        #expect(staged + moved == 399)
        #expect(staged > 0 && moved > 0 && moved < 399 / 2, "one eighth moved: \(moved)")
        #expect(try store.knownIDs(feed: "a", among: (1...401).map(String.init)).count == 400, "staged or not")
        // Seven more steps (one id each) move the other seven eighths: what is staged is theirs.
        for id in 401...407 { _ = try KeepingOne.commit(store, [String(id)]) }
        (staged, moved) = try rows(path)
        #expect(staged + moved == 406)
        #expect(staged <= 7, "only ids of the last steps wait: \(staged)")
        #expect(try store.rememberedIDs().count == 406, "a copy carries both")
        #expect(try store.knownIDs(feed: "a", among: (1...408).map(String.init)).count == 407)
    }

    @Test func stagedIDsExpireAndCompactMovesThemAll() async throws {
        let (path, store) = try KeepingOne.open(remembering: 60)
        _ = try KeepingOne.commit(store, (1...50).map(String.init))
        #expect(try rows(path).staged > 0)
        _ = try store.compact(now: now)
        #expect(try rows(path) == (0, 49), "compact moves every staged id")
        _ = try KeepingOne.commit(store, ["51", "52"])
        let (staged, moved) = try rows(path)
        #expect(staged + moved == 51)
        // A commit as late as a remembered id may be forgotten forgets every expired id, staged
        // or not, without a step.
        let late = now.addingTimeInterval(TimeInterval(60 + RememberedID.forgottenLateAtMost + 1))
        _ = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: late))
        #expect(try rows(path) == (0, 0))
        #expect(try store.knownIDs(feed: "a", among: ["1", "51", "52"]) == ["52"], "only the one held")
    }

    @Test func aStepForgetsTheExpiredIDsOfItsRange() async throws {
        let (path, store) = try KeepingOne.open(remembering: 60)
        _ = try KeepingOne.commit(store, (1...50).map(String.init))
        _ = try store.compact(now: now)
        #expect(try rows(path) == (0, 49))
        // After the minute, eight steps (one id each) go round the eighths: each forgets the
        // expired ids of its own, long before a commit would forget them one by one.
        let later = now.addingTimeInterval(61)
        for id in 51...58 { _ = try KeepingOne.commit(store, [String(id)], at: later) }
        let remembered = try store.rememberedIDs()
        #expect(remembered.count == 8, "the ids pruned after the minute: \(remembered.count)")
        #expect(remembered.allSatisfy { ($0.until ?? 0) >= Int64(later.timeIntervalSince1970) + 60 })
        #expect(try store.knownIDs(feed: "a", among: ["1", "50", "51", "58"]) == ["50", "51", "58"])
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
