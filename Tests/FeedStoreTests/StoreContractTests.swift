import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedPostgres
@testable import FeedStore

/// The store's contract as the reactor uses it (`FeedStoring`), run against every store: the
/// SQLite `FeedStore`, the `PostgresStore` of several machines and the `MemoryStore`
/// of the fast reactor tests. A reactor test on the memory store proves
/// something only where they agree, so any difference shows up here first.
@Suite("One store contract, three stores", .timeLimit(.minutes(2)))
struct StoreContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres, memory
        var testDescription: String { rawValue }
    }

    static let feeds = [
        FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph),
        FeedRegistration(name: "b", url: "http://127.0.0.1:1/b", kind: .indexed),
    ]

    private func store(_ kind: Kind) async throws -> any FeedStoring {
        switch kind {
        case .memory:
            return MemoryStore(Self.feeds)
        case .sqlite, .postgres:
            let store: any StateStore =
                kind == .sqlite ? try FeedStore.open(at: temporaryStorePath()) : try await PostgresDatabases.store()
            try store.removeFeed(named: FeedRegistration.defaultFeed.name)
            for feed in Self.feeds { try store.addFeed(feed, replace: false) }
            return store
        }
    }

    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func entries(_ ids: [String], feed: String = "a") -> [Entry] {
        ids.map { Entry.sample($0, feed: feed) }
    }

    @Test(arguments: Kind.allCases)
    func feedsAreListedByNameAndAnUnknownOneIsNotFound(kind: Kind) async throws {
        let store = try await store(kind)
        #expect(try store.feeds().map(\.name) == ["a", "b"])
        #expect(throws: FeedFailure.self) { try store.feed(named: "zz") }
        #expect((try? store.feed(named: "zz")) == nil)
        do {
            _ = try store.commitFetch(feed: "zz", entries: [], FetchCommit(fetchedAt: t0))
            Issue.record("a commit to an unknown feed must fail")
        } catch {
            #expect(error.exitCode == 66)
        }
    }

    /// Values of megabytes come back byte for byte (PostgreSQL stores them in parts, cut
    /// between scalars: a part that split a character would be refused as text), and a stored
    /// id sent again is skipped whole, its parts with it.
    @Test(arguments: Kind.allCases)
    func largeValuesComeBackByteForByte(kind: Kind) async throws {
        let store = try await store(kind)
        let piece = "a long line of text, é and 🎉 and 中文, with a \u{0} in it; "
        let title = String(repeating: piece, count: 20_000)
        let text = String(repeating: "🎉x" + piece, count: 50_000)
        let source = #"{"id":"big","text":""# + String(repeating: "é🎉 \\n ", count: 300_000) + #""}"#
        var entry = Entry.sample("big")
        entry.title = title
        entry.text = text
        entry.source = RawJSON(compactText: source)
        #expect(text.utf8.count > 3 << 20 && source.utf8.count > 2 << 20, "larger than a part")
        let stored = try store.commitFetch(feed: "a", entries: [entry], FetchCommit(fetchedAt: t0))
        #expect(stored.entries.map(\.id) == ["big"])
        var again = entry
        again.text = "not this"
        let repeated = try store.commitFetch(feed: "a", entries: [again], FetchCommit(fetchedAt: t0))
        #expect(repeated.entries.isEmpty)
        let read = try #require(try store.oldestUnread(feed: "a"))
        #expect(read.title == title, "the title whole")
        #expect(read.text == text, "the text whole, and only once")
        #expect(read.source.text == source, "the source whole")
    }

    @Test(arguments: Kind.allCases)
    func idsAreUniquePerFeedAndCountsFollowEachWrite(kind: Kind) async throws {
        let store = try await store(kind)
        let first = try store.commitFetch(feed: "a", entries: entries(["1", "2"]), FetchCommit(fetchedAt: t0))
        #expect(first.entries.map(\.id) == ["1", "2"])
        #expect(first.record.total == 2 && first.record.unread == 2 && first.record.lastReadID == nil)
        let again = try store.commitFetch(feed: "a", entries: entries(["2", "3", "3"]), FetchCommit(fetchedAt: t0))
        #expect(again.entries.map(\.id) == ["3"], "a stored id, and a repeated one, are skipped")
        #expect(
            try store.commitFetch(feed: "b", entries: entries(["1"], feed: "b"), FetchCommit(fetchedAt: t0)).entries
                .count == 1,
            "ids are unique per feed only")
        #expect(try store.knownIDs(feed: "a", among: ["1", "3", "9"]) == ["1", "3"])
        #expect(try store.unstored(feed: "a", entries(["3", "4", "4", "5"])).map(\.id) == ["4", "5"])

        #expect(try store.oldestUnread(feed: "a")?.id == "1")
        let marked = try store.markDelivered(feed: "a", id: "1")
        #expect(marked.unread == 2 && marked.total == 3 && marked.lastReadID == "1")
        #expect(try store.oldestUnread(feed: "a")?.id == "2")
        #expect(try store.markDelivered(feed: "a", id: "3").lastReadID == "3", "the last read is the newest read")
        #expect(try store.markDelivered(feed: "a", id: "nope").unread == 1, "an unknown id changes nothing")
    }

    /// A batch larger than one `INSERT` takes (SQLite: 32, then 8, then one at a time), with
    /// stored ids and a repeated one in each part: every new entry once, in order, numbered in
    /// order, and the counts by what was new.
    @Test(arguments: Kind.allCases)
    func aLargeBatchStoresEachNewEntryOnceInOrderWhateverPartItFallsIn(kind: Kind) async throws {
        let store = try await store(kind)
        _ = try store.commitFetch(feed: "a", entries: entries(["3", "35", "40"]), FetchCommit(fetchedAt: t0))
        let ids = (1...43).map(String.init) + ["20"]  // 44 entries: 32 + 8 + 4 × 1; "20" twice
        let outcome = try store.commitFetch(feed: "a", entries: entries(ids), FetchCommit(fetchedAt: t0))
        let new = (1...43).map(String.init).filter { !["3", "35", "40"].contains($0) }
        #expect(outcome.entries.map(\.id) == new, "each new entry once, in the batch's order")
        #expect(
            outcome.entries.map(\.seq) == outcome.entries.map(\.seq).sorted()
                && Set(outcome.entries.map(\.seq)).count == new.count,
            "numbered in order: \(outcome.entries.map(\.seq))")
        #expect(outcome.record.total == 43 && outcome.record.unread == 43)
        var order: [String] = []
        while let entry = try store.oldestUnread(feed: "a") {
            order.append(entry.id)
            _ = try store.markDelivered(feed: "a", id: entry.id)
        }
        #expect(order == ["3", "35", "40"] + new, "read back in storage order")
    }

    @Test(arguments: Kind.allCases)
    func aBackfillGoesBeforeEveryStoredEntryNumberedOrNot(kind: Kind) async throws {
        let store = try await store(kind)
        _ = try store.commitFetch(feed: "a", entries: entries(["new1", "new2"]), FetchCommit(fetchedAt: t0))
        let numbered = try store.number(entries(["old2", "old3"]), backfill: true)
        #expect(numbered.allSatisfy { $0.seq < 0 } && numbered[0].seq < numbered[1].seq, "\(numbered.map(\.seq))")
        _ = try store.commitFetch(feed: "a", entries: numbered, FetchCommit(fetchedAt: t0, isBackfill: true))
        _ = try store.commitFetch(feed: "a", entries: entries(["old1"]), FetchCommit(fetchedAt: t0, isBackfill: true))
        var order: [String] = []
        while let entry = try store.oldestUnread(feed: "a") {
            order.append(entry.id)
            _ = try store.markDelivered(feed: "a", id: entry.id)
        }
        #expect(order == ["old1", "old2", "old3", "new1", "new2"])
    }

    @Test(arguments: Kind.allCases)
    func theOldestUnreadOfAllIsTheOneStoredFirst(kind: Kind) async throws {
        let store = try await store(kind)
        _ = try store.commitFetch(feed: "b", entries: entries(["b1"], feed: "b"), FetchCommit(fetchedAt: t0))
        _ = try store.commitFetch(feed: "a", entries: entries(["a1"]), FetchCommit(fetchedAt: t0))
        let numbered = try store.number(entries(["b2"], feed: "b"), backfill: false)
        _ = try store.commitFetch(feed: "b", entries: numbered, FetchCommit(fetchedAt: t0))
        #expect(try store.oldestUnread(feeds: nil)?.id == "b1")
        #expect(try store.oldestUnread(feeds: ["a"])?.id == "a1")
        _ = try store.markDelivered(feed: "b", id: "b1")
        #expect(try store.oldestUnread(feeds: nil)?.id == "a1")
        _ = try store.markDelivered(feed: "a", id: "a1")
        #expect(try store.oldestUnread(feeds: nil)?.id == "b2")
        #expect(try store.oldestUnread(feeds: ["a"]) == nil)
    }

    @Test(arguments: Kind.allCases)
    func acrossFeedsThePublishedTimeComesFirstThenTheFetchTimeThenStorage(kind: Kind) async throws {
        let store = try await store(kind)
        func entry(_ id: String, _ feed: String, published: String?, fetched: String = "2026-11-20T00:00:00Z") -> Entry
        {
            var entry = Entry.sample(id, feed: feed)
            entry.published = published
            entry.fetchedAt = fetched
            return entry
        }
        _ = try store.commitFetch(
            feed: "a",
            entries: [
                entry("a-late", "a", published: "2026-11-10T00:00:00Z"),
                entry("a-undated", "a", published: nil, fetched: "2026-11-05T00:00:00Z"),
            ], FetchCommit(fetchedAt: t0))
        _ = try store.commitFetch(
            feed: "b",
            entries: [
                entry("b-early", "b", published: "2026-11-01T00:00:00Z"),
                entry("b-same", "b", published: "2026-11-10T00:00:00Z"),
            ], FetchCommit(fetchedAt: t0))
        var order: [String] = []
        while let oldest = try store.oldestUnread(feeds: nil) {
            order.append(oldest.id)
            _ = try store.markDelivered(feed: oldest.feed, id: oldest.id)
        }
        #expect(order == ["b-early", "a-undated", "a-late", "b-same"], "a tie goes to the one stored first")
    }

    @Test(arguments: Kind.allCases)
    func aCommitsBookkeepingIsExactlyWhatItSays(kind: Kind) async throws {
        let store = try await store(kind)
        let failed = try store.recordFailure(feed: "a", .temporary("HTTP 503"), at: t0, retryNotBefore: t0 + 60)
        #expect(
            failed.lastError == FeedFailure.temporary("HTTP 503").description && failed.lastErrorCode == 75
                && failed.retryNotBefore == t0 + 60)
        #expect(failed.lastFetchAt == t0 && failed.lastSuccessAt == nil)
        let kept = try store.recordFailure(feed: "a", .temporary("again"), at: t0 + 1, retryNotBefore: nil)
        #expect(kept.retryNotBefore == t0 + 60, "no new retry time keeps the old one")

        let validators = Validators(etag: "\"v1\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT")
        let ok = try store.commitFetch(
            feed: "a", entries: [],
            FetchCommit(
                fetchedAt: t0 + 2, nextIndex: 7, validators: validators, resume: .set("http://127.0.0.1:1/a?p=2"),
                skipped: .set(2)))
        #expect(
            ok.lastError == nil && ok.lastErrorCode == nil && ok.retryNotBefore == nil, "a success clears the failure")
        #expect(ok.lastFetchAt == t0 + 2 && ok.lastSuccessAt == t0 + 2)
        #expect(
            ok.nextIndex == 7 && ok.validators == validators && ok.resumeURL == "http://127.0.0.1:1/a?p=2"
                && ok.lastSkipped == 2)

        let more = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: t0 + 3, skipped: .add(3)))
        #expect(
            more.nextIndex == 7 && more.validators == validators && more.resumeURL != nil, "nil and .keep leave them")
        #expect(more.lastSkipped == 5, ".add adds to the sync's count")
        let cleared = try store.commitFetch(feed: "a", entries: [], FetchCommit(fetchedAt: t0 + 4, resume: .clear))
        #expect(cleared.resumeURL == nil && cleared.lastSkipped == 0, ".set(0) by default: a new sync's count")
    }

    @Test(arguments: Kind.allCases)
    func quietCommitsGoTogetherAndAnUnknownFeedFailsAlone(kind: Kind) async throws {
        let store = try await store(kind)
        let results = try store.commitNothingNew([
            (feed: "a", commit: FetchCommit(fetchedAt: t0, validators: Validators(etag: "\"a\""))),
            (feed: "gone", commit: FetchCommit(fetchedAt: t0)),
            (feed: "b", commit: FetchCommit(fetchedAt: t0, nextIndex: 3)),
        ])
        #expect(results.count == 3)
        #expect((try? results[0].get())?.validators.etag == "\"a\"")
        #expect((try? results[1].get()) == nil)
        #expect((try? results[2].get())?.nextIndex == 3)
    }
}

extension StoreContractTests {
    @Test(arguments: Kind.allCases)
    func aStreamsPositionIsSetByItsCommitsAndKeptByOthers(kind: Kind) async throws {
        let store = try await store(kind)
        let position = StreamPosition(lastEventID: "[{\"offset\":7}]", lastEventAt: t0)
        let first = try store.commitFetch(
            feed: "a", entries: [.sample("1", feed: "a")], FetchCommit(fetchedAt: t0, stream: position))
        #expect(first.record.stream == position)
        let kept = try store.commitNothingNew([(feed: "a", commit: FetchCommit(fetchedAt: t0 + 1))])
        #expect((try? kept[0].get())?.stream == position, "a commit without a position leaves it")
        let later = StreamPosition(lastEventID: nil, lastEventAt: t0 + 2)
        let moved = try store.commitNothingNew([(feed: "a", commit: FetchCommit(fetchedAt: t0 + 2, stream: later))])
        #expect((try? moved[0].get())?.stream == later, "a server that stops sending ids clears the id")
        #expect(try store.feed(named: "a").stream == later)
    }
}

extension CommitOutcome {
    fileprivate var lastError: String? { record.lastError }
    fileprivate var lastErrorCode: Int32? { record.lastErrorCode }
    fileprivate var retryNotBefore: Date? { record.retryNotBefore }
    fileprivate var lastFetchAt: Date? { record.lastFetchAt }
    fileprivate var lastSuccessAt: Date? { record.lastSuccessAt }
    fileprivate var nextIndex: Int { record.nextIndex }
    fileprivate var validators: Validators { record.validators }
    fileprivate var resumeURL: String? { record.resumeURL }
    fileprivate var lastSkipped: Int { record.lastSkipped }
}
