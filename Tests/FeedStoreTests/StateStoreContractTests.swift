import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedPostgres
@testable import FeedStore

/// What commands do with a store beyond the reactor's port (`StateStore`), held to one behaviour
/// on the SQLite file and on PostgreSQL: registering and changing feeds, read marks,
/// listing in every order, exact text, feed locks between runs, and `store copy` both ways.
@Suite("One command store contract, SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct StateStoreContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// A new store of `kind` and a second run's handle on the same store (another connection).
    private func stores(_ kind: Kind, wait: Duration = .seconds(30)) async throws -> (any StateStore, any StateStore) {
        switch kind {
        case .sqlite:
            let path = temporaryStorePath()
            return (try FeedStore.open(at: path, wait: wait), try FeedStore.open(at: path, wait: wait))
        case .postgres:
            let url = try await PostgresDatabases.fresh()
            guard let first = try PostgresStore.open(url: url, wait: wait),
                let second = try PostgresStore.open(url: url, wait: wait)
            else { throw PostgresDatabases.Unavailable(reason: "no store at \(url)") }
            return (first, second)
        }
    }

    private func store(_ kind: Kind) async throws -> any StateStore { try await stores(kind).0 }

    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func entry(_ id: String, feed: String = "a", title: String? = nil, published: String? = nil) -> Entry {
        Entry(
            feed: feed, id: id, title: title ?? "title \(id)", text: "text \(id)", author: "1",
            url: "https://example.com/\(id)",
            published: published, fetchedAt: "2026-11-21T19:00:00Z",
            // A source is JSON: a NUL in it is escaped, as the parser keeps it.
            source: RawJSON(compactText: #"{"id":"\#(id.replacingOccurrences(of: "\u{0}", with: #"\u0000"#))"}"#))
    }

    private func ids(
        _ store: any StateStore, feeds: [String] = [], unreadOnly: Bool = false, limit: Int? = nil,
        newestFirst: Bool = false, order: EntryOrder = .stored
    ) throws -> [String] {
        var ids: [String] = []
        try store.forEachEntry(
            feeds: feeds, unreadOnly: unreadOnly, limit: limit, newestFirst: newestFirst, order: order
        ) { entry in
            ids.append(entry.id)
            return true
        }
        return ids
    }

    /// `store compact` on either engine: every feed pruned to what it keeps at once (no step
    /// bound), expired ids forgotten, the store rewritten; a copy carries retention and ids.
    @Test(arguments: Kind.allCases)
    func compactPrunesEverythingDueAndACopyCarriesRetentionAndRememberedIDs(kind: Kind) async throws {
        let store = try await store(kind)
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        _ = try store.commitFetch(feed: "a", entries: (1...3000).map { entry(String($0)) }, FetchCommit(fetchedAt: t0))
        try store.setRetention(feed: "a", Retention(keep: .newest(10), remember: .forever))
        let outcome = try store.compact(now: t0)
        #expect(outcome == PruneOutcome(pruned: 2990, unread: 2990))
        let record = try store.feed(named: "a")
        #expect(
            record.total == 10 && record.pruned == 2990 && record.retention.keep == .newest(10) && record.keepIsChosen)
        #expect(try store.knownIDs(feed: "a", among: ["1", "2990", "3000", "3001"]) == ["1", "2990", "3000"])
        #expect(try store.rememberedIDs().count == 2990)

        let target = try await self.store(kind == .sqlite ? .postgres : .sqlite)
        try target.receiveCopy(feeds: try store.feeds(), remembered: try store.rememberedIDs()) {
            each throws(FeedFailure) in
            try store.forEachEntry(feeds: [], unreadOnly: false, limit: nil, newestFirst: false, order: .stored) {
                entry in
                try each(entry)
                return true
            }
        }
        let copied = try target.feed(named: "a")
        #expect(
            copied.retention == record.retention && copied.keepIsChosen && copied.pruned == 2990 && copied.total == 10)
        #expect(
            try target.knownIDs(feed: "a", among: ["1", "3000", "3001"]) == ["1", "3000"], "remembered ids came along")
    }

    @Test(arguments: Kind.allCases)
    func aFirstFeedOfOnesOwnRetiresTheUnusedBuiltInAndReplacingKeepsEntries(kind: Kind) async throws {
        let store = try await store(kind)
        #expect(try store.feeds().map(\.name) == ["posts"], "a new store has the built-in feed")
        #expect(try store.isEmpty())
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        #expect(try store.feeds().map(\.name) == ["a"])
        #expect(!(try store.isEmpty()))
        #expect {
            try store.addFeed(FeedRegistration(name: "a", url: "http://x/", kind: .graph), replace: false)
        } throws: { ($0 as? FeedFailure)?.exitCode == 64 }
        _ = try store.commitFetch(
            feed: "a", entries: [entry("1")], FetchCommit(fetchedAt: t0, validators: Validators(etag: "\"e\"")))
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/new", kind: .graph), replace: true)
        let record = try store.feed(named: "a")
        #expect(
            record.registration.url == "http://127.0.0.1:1/new" && record.total == 1 && record.validators.etag == nil)
        try store.setEvery(feed: "a", .seconds(600))
        try store.setTokenEnv(feed: "a", "TOKEN")
        try store.setExpressions(feed: "a", FeedExpressions(filter: ".x"))
        let changed = try store.feed(named: "a")
        #expect(
            changed.every == .seconds(600) && changed.registration.tokenEnv == "TOKEN"
                && changed.registration.expressions.filter == ".x")
        #expect { try store.setEvery(feed: "zz", nil) } throws: { ($0 as? FeedFailure)?.exitCode == 66 }
        try store.addFeeds([
            (FeedRegistration(name: "b", url: "http://127.0.0.1:1/b", kind: .linked), FeedSettings(every: .seconds(60)))
        ])
        #expect(try store.feed(named: "b").every == .seconds(60))
        try store.removeFeed(named: "a")
        #expect(try store.feeds().map(\.name) == ["b"])
        #expect(try ids(store).isEmpty, "a feed's entries go with it")
        #expect { try store.removeFeed(named: "a") } throws: { ($0 as? FeedFailure)?.exitCode == 66 }
    }

    /// `feeds add --every --keep` and `feeds import` store a feed and its settings in one
    /// transaction (they were three: a run could see the feed without them).
    @Test(arguments: Kind.allCases)
    func aFeedComesWithItsSettingsAndReplacingChangesOnlyThoseGiven(kind: Kind) async throws {
        let store = try await store(kind)
        try store.addFeed(
            FeedRegistration(name: "s", url: "http://127.0.0.1:1/s", kind: .sse),
            settings: FeedSettings(every: .seconds(120), keep: .newest(50), title: "Stream & Co"), replace: false)
        var record = try store.feed(named: "s")
        #expect(record.every == .seconds(120) && record.title == "Stream & Co")
        #expect(
            record.retention == Retention(keep: .newest(50), remember: Retention.defaultRemember(for: .sse)),
            "the part not given is the kind's default")
        try store.addFeed(
            FeedRegistration(name: "s", url: "http://127.0.0.1:1/s2", kind: .sse),
            settings: FeedSettings(remember: .forever), replace: true)
        record = try store.feed(named: "s")
        #expect(
            record.registration.url == "http://127.0.0.1:1/s2" && record.every == .seconds(120)
                && record.title == "Stream & Co")
        #expect(
            record.retention == Retention(keep: .newest(50), remember: .forever), "replacing changes only what is given"
        )
        #expect {
            try store.addFeed(
                FeedRegistration(name: "s", url: "http://x/", kind: .sse), settings: FeedSettings(every: .seconds(5)),
                replace: false)
        } throws: { ($0 as? FeedFailure)?.exitCode == 64 }
        #expect(try store.feed(named: "s").every == .seconds(120), "a refused add changes no setting")
        try store.addFeeds([
            (
                FeedRegistration(name: "i", url: "http://127.0.0.1:1/i", kind: .linked),
                FeedSettings(keep: .storedWithin(.seconds(3600)), title: "Imported")
            )
        ])
        #expect(try store.feed(named: "i").title == "Imported")
        #expect(
            try store.feed(named: "i").retention
                == Retention(keep: .storedWithin(.seconds(3600)), remember: Retention.defaultRemember(for: .linked)))
    }

    @Test(arguments: Kind.allCases)
    func readMarksByIdAndHandleCountAndRefuseAnAmbiguousId(kind: Kind) async throws {
        let store = try await store(kind)
        try store.addFeeds([
            (FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), FeedSettings()),
            (FeedRegistration(name: "b", url: "http://127.0.0.1:1/b", kind: .graph), FeedSettings()),
        ])
        _ = try store.commitFetch(feed: "a", entries: ["1", "2", "3"].map { entry($0) }, FetchCommit(fetchedAt: t0))
        _ = try store.commitFetch(feed: "b", entries: [entry("1", feed: "b")], FetchCommit(fetchedAt: t0))
        #expect { _ = try store.setRead(true, references: ["1"], feed: nil) } throws: {
            ($0 as? FeedFailure)?.exitCode == 64
        }
        #expect(try store.setRead(true, references: ["1", "2"], feed: "a") == 2)
        #expect(try store.feed(named: "a").unread == 1 && store.feed(named: "a").lastReadID == "2")
        let handle = try #require(try store.entries(id: "3", feed: "a").first?.seq)
        #expect(try store.entries(id: "@\(handle)", feed: nil).map(\.id) == ["3"])
        #expect(try store.setRead(true, references: ["@\(handle)"], feed: nil) == 1)
        #expect(try store.setRead(false, references: ["2"], feed: "a") == 1)
        #expect(try store.feed(named: "a").unread == 1)
        #expect { _ = try store.setRead(true, references: ["2", "nope"], feed: "a") } throws: {
            ($0 as? FeedFailure)?.exitCode == 66
        }
        #expect(try store.feed(named: "a").unread == 1, "a failed mark changes nothing")
        let two = try #require(try store.entries(id: "2", feed: "a").first?.seq)
        #expect(try store.markRead(feed: "a", numbers: [two, 999]) == 1)
        #expect(try store.markAllRead(feeds: []) == 1)
        #expect(try store.feed(named: "b").unread == 0 && store.feed(named: "a").unread == 0)
    }

    /// More ids than one lookup takes (PostgreSQL asks 1,000 at a time, in one snapshot): every
    /// stored one is found, in the first lookup, the last and on the boundary.
    @Test(arguments: Kind.allCases)
    func knownIDsAnswersForMoreIDsThanOneLookupTakes(kind: Kind) async throws {
        let store = try await store(kind)
        try store.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        let stored = ["1", "999", "1000", "1001", "2500"]
        _ = try store.commitFetch(feed: "a", entries: stored.map { entry($0) }, FetchCommit(fetchedAt: t0))
        let asked = (1...2_500).map(String.init) + ["x"]
        #expect(try store.knownIDs(feed: "a", among: asked) == Set(stored))
        #expect(try store.knownIDs(feed: "a", among: ["1001", "y"]) == ["1001"])
    }

    @Test(arguments: Kind.allCases)
    func entriesAreListedInEveryOrderWithTheirTextByteForByte(kind: Kind) async throws {
        let store = try await store(kind)
        try store.addFeeds([
            (FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), FeedSettings()),
            (FeedRegistration(name: "b", url: "http://127.0.0.1:1/b", kind: .graph), FeedSettings()),
        ])
        let odd = "nul\u{0}inside \u{1F600} \"quoted\" \\ back"
        _ = try store.commitFetch(
            feed: "a",
            entries: [
                entry("x\u{0}1", title: odd, published: "2026-11-03T00:00:00Z"),
                entry("2", published: "2026-11-01T00:00:00Z"),
            ], FetchCommit(fetchedAt: t0))
        _ = try store.commitFetch(
            feed: "b", entries: [entry("3", feed: "b", published: "2026-11-02T00:00:00Z")], FetchCommit(fetchedAt: t0))
        let stored = try #require(try store.entries(id: "x\u{0}1", feed: "a").first)
        #expect(stored.title == odd && stored.id == "x\u{0}1" && stored.source.text == #"{"id":"x\u00001"}"#)
        #expect(try store.knownIDs(feed: "a", among: ["x\u{0}1", "2", "x"]) == ["x\u{0}1", "2"])
        #expect(try ids(store) == ["x\u{0}1", "2", "3"])
        #expect(try ids(store, order: .published) == ["2", "3", "x\u{0}1"])
        #expect(try ids(store, newestFirst: true, order: .published) == ["x\u{0}1", "3", "2"])
        #expect(try ids(store, limit: 2) == ["2", "3"], "the newest two, oldest first")
        #expect(try ids(store, feeds: ["b"]) == ["3"])
        _ = try store.markDelivered(feed: "a", id: "2")
        #expect(try ids(store, unreadOnly: true) == ["x\u{0}1", "3"])
        #expect(try store.newestEntryID(feed: "a") == "2")
        var seen = 0
        try store.forEachEntry(feeds: [], unreadOnly: false, limit: nil, newestFirst: false, order: .stored) { _ in
            seen += 1
            return false
        }
        #expect(seen == 1, "a listing stops when told")
    }

    @Test(arguments: Kind.allCases)
    func aFeedsLockExcludesAnotherRunUntilLetGo(kind: Kind) async throws {
        let (first, second) = try await stores(kind, wait: .milliseconds(100))
        var held: (any HeldFeedLock)? = try first.lock(feed: "posts")
        #expect(try second.attemptLock(feed: "posts") == nil, "another run finds it held")
        #expect { try second.lock(feed: "posts") } throws: { ($0 as? FeedFailure)?.exitCode == 75 }
        #expect(try second.attemptLock(feed: "other") != nil, "other feeds are free")
        #expect(try first.attemptLock(feed: "posts") == nil, "a run does not take a feed it holds twice")
        withExtendedLifetime(held) {}
        held = nil
        let taken = try await afterUnlock(kind) { try second.attemptLock(feed: "posts") }
        #expect(taken != nil, "let go, it is free")
    }

    /// The store's change mark, which a `follow` of every feed reads every second or two: it
    /// moves when another run adds, changes or removes a feed.
    @Test(arguments: Kind.allCases)
    func theChangeMarkMovesWhenAnotherRunChangesTheFeeds(kind: Kind) async throws {
        let (first, second) = try await stores(kind)
        let before = try #require(try first.changeMark())
        #expect(try first.changeMark() == before, "nothing changed")
        try second.addFeed(
            FeedRegistration(name: "added", url: "https://example.com/f", kind: .linked), settings: FeedSettings(),
            replace: false)
        let added = try #require(try first.changeMark())
        #expect(added != before, "a feed added elsewhere")
        try second.setEvery(feed: "added", .seconds(3600))
        let changed = try #require(try first.changeMark())
        #expect(changed != added, "a feed changed elsewhere")
        try second.removeFeed(named: "added")
        #expect(try first.changeMark() != changed, "a feed removed elsewhere")
    }

    /// A `follow` owns a feed apart from its lock: another run sees the owner (in words) and
    /// cannot own it too; the owner does not see itself; the feed's lock stays free for a commit
    /// or a reader; let go, the feed has no owner.
    @Test(arguments: Kind.allCases)
    func aFeedsOwnerIsSeenByOtherRunsUntilItLetsGo(kind: Kind) async throws {
        let (first, second) = try await stores(kind, wait: .milliseconds(100))
        #expect(try second.ownerElsewhere(feed: "posts") == nil, "no owner yet")
        var owner: (any HeldFeedLock)? = try first.attemptOwnership(feed: "posts")
        #expect(owner != nil)
        // Both engines read the owners of every feed at once, and that read stands for a second.
        var seen = try second.ownerElsewhere(feed: "posts")
        for _ in 0..<300 where seen == nil {
            try await Task.sleep(for: .milliseconds(10))
            seen = try second.ownerElsewhere(feed: "posts")
        }
        #expect(seen?.contains("follow") == true, "named for a message: \(seen ?? "nil")")
        #expect(try first.ownerElsewhere(feed: "posts") == nil, "the owner is no other run")
        #expect(try second.attemptOwnership(feed: "posts") == nil, "one owner at a time")
        #expect(try second.ownerElsewhere(feed: "other") == nil, "other feeds have none")
        #expect(try second.attemptLock(feed: "posts") != nil, "the feed's lock is apart from its owner")
        withExtendedLifetime(owner) {}
        owner = nil
        var free = try second.ownerElsewhere(feed: "posts") == nil
        for _ in 0..<300 where !free {
            try await Task.sleep(for: .milliseconds(10))
            free = try second.ownerElsewhere(feed: "posts") == nil
        }
        #expect(free, "let go, no owner")
        #expect(try second.attemptOwnership(feed: "posts") != nil)
    }

    /// What `attempt` gives once a lock let go is free: at once for SQLite; for PostgreSQL once
    /// the server ran the unlock, which the run that held it sends without waiting for the answer.
    private func afterUnlock<T>(_ kind: Kind, _ attempt: () throws -> T?) async throws -> T? {
        var value = try attempt()
        for _ in 0..<200 where value == nil && kind == .postgres {
            try? await Task.sleep(for: .milliseconds(10))
            value = try attempt()
        }
        return value
    }

    /// A lock taken with the feed's record (PostgreSQL: one round trip): the record as the last
    /// holder committed it, an unknown name's 66 with the lock (let go with it), and nothing
    /// while another run holds the feed.
    @Test(arguments: Kind.allCases)
    func aLockTakenWithItsRecordReadsWhatTheLastHolderCommitted(kind: Kind) async throws {
        let (first, second) = try await stores(kind, wait: .milliseconds(100))
        try first.addFeed(FeedRegistration(name: "a", url: "http://127.0.0.1:1/a", kind: .graph), replace: false)
        var held: (any HeldFeedLock)? = try first.lock(feed: "a")
        _ = try first.commitFetch(feed: "a", entries: [entry("1")], FetchCommit(fetchedAt: t0, nextIndex: 5))
        #expect(try second.attemptLockReading(feed: "a") == nil, "held by another run")
        withExtendedLifetime(held) {}
        held = nil
        var taken = try await afterUnlock(kind) { try second.attemptLockReading(feed: "a") }
        let record = try #require(taken).record
        #expect(try record.get().total == 1 && record.get().nextIndex == 5, "what the last holder committed")
        #expect(try first.attemptLock(feed: "a") == nil, "the lock came with it")
        taken = nil
        let unknown = try #require(try second.attemptLockReading(feed: "zz"))
        #expect { try unknown.record.get() } throws: { ($0 as? FeedFailure)?.exitCode == 66 }
    }

    @Test(arguments: Kind.allCases, Kind.allCases)
    func aCopyCarriesEveryFeedAndEntryAndOnlyIntoAnEmptyStore(from: Kind, to: Kind) async throws {
        let source = try await store(from)
        try source.addFeeds([
            (
                FeedRegistration(
                    name: "a", url: "http://127.0.0.1:1/a", kind: .graph, tokenEnv: "T",
                    expressions: FeedExpressions(filter: ".ok")), FeedSettings(every: .seconds(300))
            ),
            (FeedRegistration(name: "s", url: "http://127.0.0.1:1/s", kind: .sse), FeedSettings()),
        ])
        _ = try source.commitFetch(
            feed: "a", entries: (1...300).map { entry("\($0)") },
            FetchCommit(
                fetchedAt: t0, nextIndex: 7, validators: Validators(etag: "\"e\"", lastModified: "lm"),
                resume: .set("http://127.0.0.1:1/a?page=2"), skipped: .set(2)))
        _ = try source.commitFetch(
            feed: "a", entries: [entry("old\u{0}")], FetchCommit(fetchedAt: t0, isBackfill: true))
        _ = try source.commitFetch(
            feed: "s", entries: [entry("e1", feed: "s")],
            FetchCommit(fetchedAt: t0, stream: StreamPosition(lastEventID: "42", lastEventAt: t0)))
        _ = try source.setRead(true, references: ["1", "2"], feed: "a")
        _ = try source.recordFailure(feed: "s", .temporary("busy"), at: t0, retryNotBefore: t0.addingTimeInterval(60))

        let target = try await store(to)
        try target.receiveCopy(feeds: try source.feeds(), remembered: try source.rememberedIDs()) {
            each throws(FeedFailure) in
            try source.forEachEntry(feeds: [], unreadOnly: false, limit: nil, newestFirst: false, order: .stored) {
                entry in
                try each(entry)
                return true
            }
        }
        #expect(try target.feeds() == source.feeds(), "every record, counts and read cursor included")
        var sourceEntries: [Entry] = []
        var targetEntries: [Entry] = []
        try source.forEachEntry(feeds: [], unreadOnly: false, limit: nil, newestFirst: false, order: .stored) {
            sourceEntries.append($0)
            return true
        }
        try target.forEachEntry(feeds: [], unreadOnly: false, limit: nil, newestFirst: false, order: .stored) {
            targetEntries.append($0)
            return true
        }
        #expect(targetEntries == sourceEntries)
        #expect(targetEntries.count == 302 && targetEntries.first?.id == "old\u{0}")
        // New entries number on from the copied ones, above and (for a backfill) below.
        let next = try target.commitFetch(feed: "a", entries: [entry("301")], FetchCommit(fetchedAt: t0))
        #expect(next.entries.first.map { $0.seq > targetEntries.map(\.seq).max() ?? 0 } == true)
        #expect {
            try target.receiveCopy(feeds: try source.feeds(), remembered: try source.rememberedIDs()) {
                _ throws(FeedFailure) in
            }
        } throws: { ($0 as? FeedFailure)?.exitCode == 64 }
    }
}
