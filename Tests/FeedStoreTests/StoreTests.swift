import CSQLite
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedBase
@testable import FeedModel
@testable import FeedStore

@Suite("FeedStore", .timeLimit(.minutes(3)))
struct StoreTests {
    @Test func createsAMigratedStoreReadableByItsOwnerOnly() throws {
        let path = temporaryStorePath()
        let store = try FeedStore.open(at: path)
        #expect(try store.feeds().map(\.name) == ["posts"], "the default feed exists from the first run")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        _ = try FeedStore.open(at: path)  // reopening migrates nothing and keeps data
        #expect(try FeedStore.open(at: path).feeds().count == 1)
    }

    @Test func aListedFeedIsReadAgainWhenAnotherRunCommittedSinceTheListing() throws {
        let path = temporaryStorePath()
        let store = try FeedStore.open(at: path)
        let listed = try #require(try store.listedFeeds().first { $0.record.name == "posts" })
        #expect(try store.feed(listed) == listed.record, "nothing changed: the listed record is current")
        // This run's own commits leave the listing standing: a sync commits only the feed it
        // holds, after taking it, so no other listed record can have changed through them.
        let time = Date(timeIntervalSince1970: 0)
        _ = try store.commitNothingNew([
            ("posts", FetchCommit(fetchedAt: time, validators: Validators(etag: "\"own\"")))
        ])
        #expect(try store.feed(listed).validators.etag == nil)
        // Another run (another connection) committed: the record is read again.
        let other = try FeedStore.open(at: path)
        _ = try other.commitNothingNew([
            ("posts", FetchCommit(fetchedAt: time, validators: Validators(etag: "\"other\"")))
        ])
        #expect(try store.feed(listed).validators.etag == "\"other\"")
        try other.removeFeed(named: "posts")
        #expect { try store.feed(listed) } throws: { ($0 as? FeedFailure)?.exitCode == 66 }
    }

    @Test func migratesAnEmptyFile() throws {
        let path = temporaryStorePath()
        try writeFile(path, Data())
        #expect(try FeedStore.open(at: path).feeds().map(\.name) == ["posts"])
    }

    @Test func refusesAndLeavesAloneAFileThatIsNotAFeedcliStore() throws {
        let path = temporaryStorePath()
        let text = Data("my notes, not a database\n".utf8)
        try writeFile(path, text)
        #expect { try FeedStore.open(at: path) } throws: { ($0 as? FeedFailure)?.exitCode == 74 }
        #expect(FileManager.default.contents(atPath: path) == text)
    }

    @Test func cannotCreateUnderAFile() throws {
        let blocker = temporaryStorePath("blocker")
        try writeFile(blocker, Data("x".utf8))
        #expect { try FeedStore.open(at: blocker + "/sub/feedcli.sqlite") } throws: {
            ($0 as? FeedFailure)?.exitCode == 73
        }
    }

    @Test func entriesAreUniquePerFeedAndDeliveredOldestFirst() throws {
        let store = try FeedStore.open(at: temporaryStorePath())
        let commit = FetchCommit(fetchedAt: Date(timeIntervalSince1970: 0))
        let first = try store.commitFetch(feed: "posts", entries: [.sample("1"), .sample("2")], commit)
        // Added once `posts` holds entries: a used built-in feed stays.
        try store.addFeed(FeedRegistration(name: "other", url: "http://x/", kind: .indexed), replace: false)
        let again = try store.commitFetch(feed: "posts", entries: [.sample("2"), .sample("3")], commit)
        let elsewhere = try store.commitFetch(feed: "other", entries: [.sample("1", feed: "other")], commit)
        #expect(first.entries.map(\.id) == ["1", "2"])
        #expect(again.entries.map(\.id) == ["3"], "a stored id is skipped")
        #expect(again.record.total == 3 && again.record.unread == 3, "the store's counters, returned with the commit")
        #expect(elsewhere.entries.map(\.id) == ["1"], "ids are unique per feed only")
        #expect(try store.oldestUnread(feed: "posts")?.id == "1")
        #expect(try store.oldestUnread(feed: "posts")?.id == "1", "finding it does not mark it")
        #expect(try store.markDelivered(feed: "posts", id: "1").unread == 2)
        #expect(try store.oldestUnread(feed: "posts")?.id == "2")
        #expect(try store.markDelivered(feed: "posts", id: "2").lastReadID == "2")
        var listed: [String] = []
        try store.forEachEntry(feed: "posts", unreadOnly: true, limit: nil) {
            listed.append($0.id)
            return true
        }
        #expect(listed == ["3"])
        listed = []
        try store.forEachEntry(feed: nil, unreadOnly: false, limit: 2) {
            listed.append("\($0.feed)/\($0.id)")
            return true
        }
        #expect(listed == ["posts/3", "other/1"], "--limit keeps the newest, printed oldest first")
        listed = []
        try store.forEachEntry(feed: nil, unreadOnly: false, limit: nil) {
            listed.append($0.id)
            return listed.count < 2
        }
        #expect(listed == ["1", "2"], "the body can stop the stream")
    }

    @Test func aFailedTransactionLeavesNothingBehind() throws {
        let store = try FeedStore.open(at: temporaryStorePath())
        #expect(throws: FeedFailure.self) {
            try store.commitFetch(
                feed: "no-such-feed", entries: [.sample("1", feed: "no-such-feed")],
                FetchCommit(fetchedAt: Date(timeIntervalSince1970: 0), nextIndex: 9))
        }
        var count = 0
        try store.forEachEntry(feed: nil, unreadOnly: false, limit: nil) { _ in
            count += 1
            return true
        }
        #expect(count == 0)
    }

    @Test func feedsAddReplaceRemove() throws {
        let store = try FeedStore.open(at: temporaryStorePath())
        let feed = FeedRegistration(name: "a", url: "http://x/", kind: .graph, tokenEnv: "A_TOKEN")
        try store.addFeed(feed, replace: false)
        #expect(throws: FeedFailure.usage("feed a exists; use --replace to change it")) {
            try store.addFeed(feed, replace: false)
        }
        try store.addFeed(FeedRegistration(name: "a", url: "http://y/", kind: .linked), replace: true)
        #expect(try store.feed(named: "a").registration == FeedRegistration(name: "a", url: "http://y/", kind: .linked))
        try store.removeFeed(named: "a")
        #expect(throws: FeedFailure.notFound("no feed named a")) { try store.removeFeed(named: "a") }
    }

    /// A held lock is waited for up to the store's `--wait`, counted on a virtual clock that
    /// each pause advances: exactly the attempts that fit in the wait, and no real time.
    @Test func aFeedLockIsExclusiveAndWaitsUpToItsLimit() throws {
        let path = temporaryStorePath()
        let store = try FeedStore.open(at: path, wait: .milliseconds(200))
        let time = Locked(Duration.zero)
        let pauses = Locked(0)
        let clock = FeedLock.WaitingClock(
            elapsed: { time.value },
            pause: { pause in
                time.withLock { $0 += pause }
                pauses.withLock { $0 += 1 }
            })
        do {
            let held = try store.lock(feed: "posts")
            #expect(throws: FeedFailure.temporary("feed posts is busy in another feedcli run (waited 0 s)")) {
                try FeedLock.acquire(
                    path: path + ".locks/feed-posts.lock", wait: .milliseconds(200), holder: "feed posts", clock: clock)
            }
            #expect(pauses.value == 10, "200 ms of 20 ms pauses, then it gives up")
            _ = try store.lock(feed: "other")
            withExtendedLifetime(held) {}
        }
        _ = try store.lock(feed: "posts")
    }

    /// A store another process writes is waited for up to `--wait` on the store's clock, with
    /// SQLite's own schedule of pauses, a fraction of a second included (`--wait 0.5` once waited
    /// nothing); on a virtual clock: no real time, every pause seen.
    @Test func aBusyStoreIsWaitedForUpToTheWaitOnTheStoresClock() throws {
        let path = temporaryStorePath()
        _ = try FeedStore.open(at: path)
        let time = Locked(Duration.zero)
        let pauses = Locked<[Duration]>([])
        let clock = FeedLock.WaitingClock(
            elapsed: { time.value },
            pause: { pause in
                time.withLock { $0 += pause }
                pauses.withLock { $0.append(pause) }
            })
        let store = try FeedStore.open(at: path, wait: .milliseconds(500), clock: clock)
        let holder = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE)
        try holder.execute("BEGIN IMMEDIATE")  // another writer holds the store
        let feed = FeedRegistration(name: "a", url: "http://127.0.0.1:9/a", kind: .graph)
        #expect { try store.addFeed(feed, replace: false) } throws: { ($0 as? FeedFailure)?.exitCode == 75 }
        #expect(time.value == .milliseconds(500), "it waited --wait, no more, no less")
        #expect(Array(pauses.value.prefix(12)) == SQLiteBusyWait.pauses)
        #expect(pauses.value.dropFirst(12).allSatisfy { $0 <= .milliseconds(100) })
        let waits = pauses.value.count
        try holder.execute("COMMIT")
        try store.addFeed(feed, replace: false)
        #expect(pauses.value.count == waits, "a free store is not waited for")
    }

    @Test func attemptingAHeldLockReturnsAtOnceWithNothing() throws {
        // An hour's wait: an attempt that waited would hold the test to its time limit.
        let store = try FeedStore.open(at: temporaryStorePath(), wait: .seconds(3600))
        do {
            let held = try store.lock(feed: "posts")
            #expect(try store.attemptLock(feed: "posts") == nil, "held by another (flock is per open file)")
            #expect(try store.attemptLock(feed: "other") != nil)
            withExtendedLifetime(held) {}
        }
        #expect(try store.attemptLock(feed: "posts") != nil, "free again once let go")
    }

    @Test func aLockRecreatesItsFolderWhenItWasRemoved() throws {
        let path = temporaryStorePath()
        let store = try FeedStore.open(at: path)
        _ = try store.lock(feed: "posts")
        try FileManager.default.removeItem(atPath: path + ".locks")
        #expect(try store.attemptLock(feed: "posts") != nil)
        let folder = try FileManager.default.attributesOfItem(atPath: path + ".locks")
        #expect((folder[.posixPermissions] as? Int) == 0o700)
    }

    /// The built-in `posts` is retired by a first feed of one's own while nobody used it, by
    /// `addFeed` and `addFeeds` alike; a used one (entries, a successful fetch) stays,
    /// and so does a `posts` the user made their own.
    @Test func aFirstFeedOfOnesOwnRetiresAnUnusedPosts() throws {
        let mine = FeedRegistration(name: "mine", url: "http://x/mine", kind: .graph)
        let names = { (store: FeedStore) in try store.feeds().map(\.name) }
        let fresh = try FeedStore.open(at: temporaryStorePath())
        #expect(try names(fresh) == ["posts"], "a new store starts with it")
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        _ = try fresh.recordFailure(feed: "posts", .temporary("offline"), at: time, retryNotBefore: nil)
        try fresh.addFeed(mine, replace: false)
        #expect(try names(fresh) == ["mine"], "a failed fetch is no use")

        let imported = try FeedStore.open(at: temporaryStorePath())
        try imported.addFeeds([(mine, FeedSettings())])
        #expect(try names(imported) == ["mine"])

        let read = try FeedStore.open(at: temporaryStorePath())
        _ = try read.commitFetch(feed: "posts", entries: [.sample("1")], FetchCommit(fetchedAt: time))
        try read.addFeed(mine, replace: false)
        #expect(try names(read) == ["mine", "posts"], "a used one stays until feeds rm posts")

        let fetched = try FeedStore.open(at: temporaryStorePath())
        _ = try fetched.commitNothingNew([("posts", FetchCommit(fetchedAt: time))])
        try fetched.addFeed(mine, replace: false)
        #expect(try names(fetched) == ["mine", "posts"], "fetched successfully, even with nothing in it")

        let own = try FeedStore.open(at: temporaryStorePath())
        try own.addFeed(FeedRegistration(name: "posts", url: "http://x/posts", kind: .indexed), replace: true)
        try own.addFeed(mine, replace: false)
        #expect(try names(own) == ["mine", "posts"], "a posts of the user's own URL is theirs")
    }

    @Test func quietFetchesAreCommittedTogetherAndAMissingFeedFailsAlone() throws {
        let store = try FeedStore.open(at: temporaryStorePath())
        try store.addFeed(FeedRegistration(name: "a", url: "http://x/a", kind: .graph), replace: false)
        try store.addFeed(FeedRegistration(name: "posts", url: "http://x/posts", kind: .indexed), replace: false)
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        _ = try store.recordFailure(feed: "a", .temporary("down"), at: time, retryNotBefore: time)
        let validators = Validators(etag: "\"v2\"", lastModified: nil)
        let outcomes = try store.commitNothingNew([
            ("a", FetchCommit(fetchedAt: time, validators: validators)),
            ("gone", FetchCommit(fetchedAt: time)),
            ("posts", FetchCommit(fetchedAt: time, nextIndex: 7)),
        ])
        #expect(outcomes.count == 3)
        let a = try outcomes[0].get()
        #expect(a.lastFetchAt == time && a.lastSuccessAt == time && a.validators == validators)
        #expect(a.lastError == nil && a.retryNotBefore == nil, "a success clears the last error and retry time")
        #expect(a == (try store.feed(named: "a")), "the record returned is the one stored")
        #expect(throws: FeedFailure.notFound("no feed named gone")) { try outcomes[1].get() }
        #expect(try outcomes[2].get().nextIndex == 7, "the others are committed all the same")
    }

    @Test func readsKeepCachedStatementsCompiled() throws {
        // A statement compiled once stays compiled across reads and writes (GRDB's `read`, which
        // the store once used, toggled `PRAGMA query_only` and so expired every statement).
        let store = try FeedStore.open(at: temporaryStorePath())
        _ = try store.feed(named: "posts")
        for _ in 0..<3 {
            _ = try store.oldestUnread(feed: "posts")
            _ = try store.feeds()
            _ = try store.knownIDs(feed: "posts", among: ["1"])
            _ = try store.commitNothingNew([("posts", FetchCommit(fetchedAt: Date(timeIntervalSince1970: 0)))])
            _ = try store.feed(named: "posts")
        }
        #expect(try store.recordQueryRecompilations() == 0)
    }
}
