import FeedModel
import FeedPostgres
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

/// Retention as every store takes it (`--keep`, `--remember`; the contract's "Running for
/// months"), on SQLite, PostgreSQL and the memory store: what is pruned, in what order and how
/// much a commit prunes, what is remembered and for how long, and what the record counts.
@Suite("Retention, on every store", .timeLimit(.minutes(2)))
struct RetentionContractTests {
    typealias Kind = StoreContractTests.Kind

    private func store(_ kind: Kind) async throws -> any FeedStoring {
        let feeds = [
            FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph),
            FeedRegistration(name: "b", url: "http://127.0.0.1:1/b", kind: .graph),
        ]
        switch kind {
        case .memory:
            return MemoryStore(feeds)
        case .sqlite, .postgres:
            let store: any StateStore =
                kind == .sqlite ? try FeedStore.open(at: temporaryStorePath()) : try await PostgresDatabases.store()
            try store.removeFeed(named: FeedRegistration.defaultFeed.name)
            for feed in feeds { try store.addFeed(feed, replace: false) }
            return store
        }
    }

    /// Noon on 2026-11-21, the time of the commits below.
    private let now = Date(timeIntervalSince1970: 1_763_726_400)

    private func entries(_ ids: [String], feed: String = "a", storedAgo seconds: Double = 0, read: Bool = false)
        -> [Entry]
    {
        ids.map { id in
            var entry = Entry.sample(id, feed: feed, read: read)
            entry.fetchedAt = Timestamp.format(now.addingTimeInterval(-seconds))
            return entry
        }
    }

    @Test(arguments: Kind.allCases)
    func aNewFeedKeepsAllAndAStreamSevenDays(kind: Kind) async throws {
        let store = try await store(kind)
        #expect(try store.feed(named: "a").retention == Retention(keep: .all, remember: .for(.seconds(90 * 86_400))))
        #expect(
            Retention.defaults(for: .sse)
                == Retention(keep: .storedWithin(.seconds(7 * 86_400)), remember: .for(.seconds(86_400))))
        // A feed that keeps all never prunes, however much it holds.
        let record = try store.commitFetch(
            feed: "a", entries: entries((1...50).map(String.init)), FetchCommit(fetchedAt: now)
        ).record
        #expect(record.total == 50 && record.pruned == 0)
    }

    @Test(arguments: Kind.allCases)
    func keepingACountPrunesTheOldestReadOrUnreadAndRemembersTheirIDs(kind: Kind) async throws {
        let store = try await store(kind)
        try store.setRetention(feed: "a", Retention(keep: .newest(3), remember: .forever))
        let record = try store.commitFetch(
            feed: "a", entries: entries(["1"], read: true) + entries(["2", "3", "4", "5"]),
            FetchCommit(fetchedAt: now)
        ).record
        #expect(record.total == 3 && record.unread == 3, "the newest 3 stay")
        #expect(record.pruned == 2 && record.prunedUnread == 1, "1 (read) and 2 (unread) went")
        #expect(try store.oldestUnread(feed: "a")?.id == "3")
        // Known: the three held and the two pruned; another feed's ids are its own.
        #expect(try store.knownIDs(feed: "a", among: ["1", "2", "3", "5", "6"]) == ["1", "2", "3", "5"])
        #expect(try store.knownIDs(feed: "b", among: ["1", "2"]).isEmpty)
        // The counts survive another commit and add up.
        let next = try store.commitFetch(feed: "a", entries: entries(["6"]), FetchCommit(fetchedAt: now)).record
        #expect(next.total == 3 && next.pruned == 3 && next.prunedUnread == 2)
        #expect(try store.knownIDs(feed: "a", among: ["3"]) == ["3"], "pruned as it went: remembered")
    }

    @Test(arguments: Kind.allCases)
    func keepingADurationPrunesWhatWasStoredBeforeItAndKeepsTheNewestEntry(kind: Kind) async throws {
        let store = try await store(kind)
        _ = try store.commitFetch(
            feed: "a", entries: entries(["1", "2"], storedAgo: 10 * 86_400) + entries(["3"], storedAgo: 86_400),
            FetchCommit(fetchedAt: now.addingTimeInterval(-86_400)))
        try store.setRetention(
            feed: "a", Retention(keep: .storedWithin(.seconds(7 * 86_400)), remember: .for(.seconds(3600))))
        let record = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: now)).record
        #expect(record.total == 1 && record.pruned == 2)
        #expect(try store.knownIDs(feed: "a", among: ["1", "2", "3"]) == ["1", "2", "3"])
        // Everything older than the window: the newest entry stays (a stream's catch-up starts there).
        try store.setRetention(feed: "a", Retention(keep: .storedWithin(.seconds(60)), remember: .for(.seconds(3600))))
        let after = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: now)).record
        #expect(after.total == 1 && after.pruned == 2)
        #expect(try store.newestEntryID(feed: "a") == "3")
    }

    @Test(arguments: Kind.allCases)
    func aCommitPrunesABoundedStepSoABigBacklogGoesOverSeveralCommits(kind: Kind) async throws {
        let store = try await store(kind)
        _ = try store.commitFetch(feed: "a", entries: entries((1...2500).map(String.init)), FetchCommit(fetchedAt: now))
        try store.setRetention(feed: "a", Retention(keep: .newest(100), remember: .for(.seconds(3600))))
        var record = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: now)).record
        #expect(record.pruned == PruneStep.most && record.total == 2500 - PruneStep.most)
        record = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: now)).record
        #expect(record.pruned == 2 * PruneStep.most)
        record = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: now)).record
        #expect(record.total == 100 && record.pruned == 2400, "the rest, and no more")
        #expect(try store.oldestUnread(feed: "a")?.id == "2401")
        // A commit storing more than half the step prunes twice what it stored: a stream at any
        // rate is pruned as fast as it grows.
        record = try store.commitFetch(
            feed: "a", entries: entries((2501...4000).map(String.init)), FetchCommit(fetchedAt: now)
        ).record
        #expect(record.total == 100 && record.pruned == 3900)
    }

    @Test(arguments: Kind.allCases)
    func rememberedIDsAreForgottenOnceTheirTimeHasPassed(kind: Kind) async throws {
        let store = try await store(kind)
        try store.setRetention(feed: "a", Retention(keep: .newest(1), remember: .for(.seconds(60))))
        _ = try store.commitFetch(feed: "a", entries: entries(["1", "2", "3"]), FetchCommit(fetchedAt: now))
        #expect(try store.knownIDs(feed: "a", among: ["1", "2", "3"]) == ["1", "2", "3"])
        // Known for the minute at least; forgotten by a commit at most `forgottenLateAtMost` after
        // (on PostgreSQL, of a feed that does not keep all).
        _ = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: now.addingTimeInterval(59)))
        #expect(try store.knownIDs(feed: "a", among: ["1", "2", "3"]) == ["1", "2", "3"])
        let late = now.addingTimeInterval(
            TimeInterval(60 + RememberedID.forgottenLateAtMost(rememberedFor: 60) + 1))
        _ = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: late))
        #expect(try store.knownIDs(feed: "a", among: ["1", "2", "3"]) == ["3"])
        // `--remember 0s` remembers nothing.
        try store.setRetention(feed: "b", Retention(keep: .newest(1), remember: .for(.zero)))
        _ = try store.commitFetch(feed: "b", entries: entries(["7", "8"], feed: "b"), FetchCommit(fetchedAt: now))
        #expect(try store.knownIDs(feed: "b", among: ["7", "8"]) == ["8"])
    }

    /// Steps of hundreds of large entries, as a Wikimedia follow prunes them: each step's undo
    /// record passes the 1 MiB a statement's journal keeps in memory. Inside a savepoint this
    /// failed with SQLITE_FULL ("the disk is full", 74) at about the 50,000th event of a follow
    /// keeping 20,000, on a disk with 75 GB free.
    @Test(arguments: [Kind.sqlite, .postgres])
    func largeStepsOfLargeEntriesPrune(kind: Kind) async throws {
        let store = try await store(kind)
        try store.setRetention(feed: "a", Retention(keep: .newest(2000), remember: .for(.seconds(60))))
        let text = String(repeating: "x", count: 2200)
        var record: FeedRecord?
        for batch in 0..<24 {
            let batchEntries = (0..<500).map { index in
                var entry = Entry.sample(String(batch * 500 + index), feed: "a")
                entry.text = text
                entry.fetchedAt = Timestamp.format(now)
                return entry
            }
            record = try store.commitFetch(feed: "a", entries: batchEntries, FetchCommit(fetchedAt: now)).record
        }
        #expect(record?.total == 2000 && record?.pruned == 10_000)
    }

    @Test func aKeptCountWaitsForASixtyFourthMoreAtMost1024BeforeAStep() {
        var record = FeedRecord(
            registration: FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .sse),
            retention: Retention(keep: .newest(100_000), remember: .for(.seconds(60))), keepIsChosen: true)
        record.total = 101_023
        #expect(PruneStep.plan(record, now: now, stored: 1) == nil, "1,023 more wait")
        record.total = 101_024
        #expect(PruneStep.plan(record, now: now, stored: 1)?.limit == 1024)
        #expect(PruneStep.plan(record, now: now, stored: 1)?.rememberUntil == Int64(now.timeIntervalSince1970) + 60)
        record.retention.keep = .newest(10_000)
        record.total = 10_155
        #expect(PruneStep.plan(record, now: now, stored: 1) == nil, "a 64th of 10,000: 155 more wait")
        record.total = 10_156
        #expect(PruneStep.plan(record, now: now, stored: 1)?.limit == 156)
        record.retention.keep = .newest(100_000)
        record.total = 100_001
        #expect(PruneStep.plan(record, now: now, stored: 0, limit: .max)?.limit == 1, "compact waits for none")
        record.retention.keep = .newest(64)
        record.total = 65
        #expect(PruneStep.plan(record, now: now, stored: 0)?.limit == 1, "a small count is kept exactly")
    }

    @Test func rememberedKeysAreFixedForEverAndTellFeedsApart() {
        // Stores hold these keys: a change of the hash would forget every remembered id.
        #expect(RememberedID.key(feed: "a", id: "1") == RememberedID.key(feed: "a", id: "1"))
        #expect(RememberedID.key(feed: "a", id: "1") != RememberedID.key(feed: "b", id: "1"))
        #expect(
            RememberedID.key(feed: "a", id: "b1") != RememberedID.key(feed: "ab", id: "1"),
            "the feed's name ends at a NUL")
        #expect(
            RememberedID.key(feed: "wikimedia", id: "0b5e2a1c-7f2e-4a55-9a3e-2f1f6a0d9c11") == 5_792_593_097_332_033_120
        )
    }
}
