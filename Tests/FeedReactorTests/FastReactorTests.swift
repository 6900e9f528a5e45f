import FeedBase
import FeedKinds
import FeedModel
import FeedReactive
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

/// An output that takes only the first `capacity` entries, as a disk that fills up.
private final class CountingOutput: EntryOutput {
    private let capacity: Int
    let delivered = Locked<[Entry]>([])

    init(capacity: Int = .max) {
        self.capacity = capacity
    }

    func deliver(_ entries: [Entry]) -> DeliveryReport {
        delivered.withLock { delivered in
            let room = max(0, min(entries.count, capacity - delivered.count))
            delivered += entries.prefix(room)
            return DeliveryReport(
                delivered: room,
                failure: room < entries.count
                    ? .output(OutputError(written: 0, errorNumber: ENOSPC)) : nil)
        }
    }
}

/// `FeedReactor.mutate` with an in-memory store and canned responses: no file, no socket, no
/// thread hops, so each action runs synchronously and every mutation can be asserted in order.
@Suite("FeedReactor with no file and no socket", .timeLimit(.minutes(3)))
struct FastReactorTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    let fetcher = StubFetcher()
    let posts = FeedRegistration(name: "p", url: "http://stub/posts", kind: .indexed)
    let graph = FeedRegistration(name: "g", url: "http://stub/graph", kind: .graph)

    fileprivate func host(
        _ store: MemoryStore, output: any EntryOutput = CountingOutput(), options: FetchOptions = FetchOptions()
    ) -> (ReactorHost<RecordingReactor>, Locked<[FeedMutation]>) {
        let mutations = Locked<[FeedMutation]>([])
        let reactor = RecordingReactor(
            base: FeedReactor(
                environment: FeedEnvironment(
                    store: store, fetcher: fetcher, options: options,
                    output: output, now: { Self.now })),
            mutations: mutations)
        return (ReactorHost(reactor: reactor), mutations)
    }

    func post(_ n: Int) -> String { #"{"userId":1,"id":\#(n),"title":"t\#(n)","body":"b\#(n)"}"# }

    @Test func nextFetchesPrintsThenCommitsTheReadMark() async throws {
        let store = MemoryStore([posts])
        fetcher.set("http://stub/posts/1", body: post(1))
        let output = CountingOutput()
        let (host, mutations) = host(store, output: output)
        let state = await host.process(.next(feed: "p"))
        #expect(output.delivered.value.map(\.id) == ["1"])
        #expect(state.delivered.map(\.id) == ["1"])
        let record = try store.feed(named: "p")
        #expect(record.nextIndex == 2 && record.lastReadID == "1" && record.lastFetchAt == Self.now)
        #expect(
            mutations.value.map(\.name) == [
                "actionStarted", "loaded", "activity fetching", "stored", "delivered",
            ])
        #expect(state.feeds["p"]?.record == record, "the state holds the store's record, as the store returned it")
        #expect(fetcher.requested == ["http://stub/posts/1"])
    }

    /// The view changes nothing the reactor does: printed as plain text (handles shown) or as
    /// JSON, the same run emits the same mutations.
    @Test func theSameRunEmitsTheSameMutationsWhateverTheView() async throws {
        var names: [[String]] = []
        for output in [CountingOutput(), CountingOutput(capacity: 10)] {
            let store = MemoryStore([posts])
            for n in 1...3 { fetcher.set("http://stub/posts/\(n)", body: post(n)) }
            let (host, mutations) = host(store, output: output)
            let state = await host.process(.sync(feeds: ["p"]))
            #expect(state.newEntryCount == 3 && state.feeds["p"]?.activity == .idle)
            names.append(mutations.value.map(\.name))
        }
        #expect(names[0] == names[1], "\(names)")
        #expect(names[0].contains("activity fetching"))
    }

    @Test func syncCommitsOnlyWhatTheOutputTook() async throws {
        let store = MemoryStore([posts])
        for n in 1...6 { fetcher.set("http://stub/posts/\(n)", body: post(n)) }
        let (host, _) = host(store, output: CountingOutput(capacity: 3))
        let state = await host.process(.sync(feeds: ["p"]))
        #expect(store.entries("p").map(\.id) == ["1", "2", "3"])
        #expect(try store.feed(named: "p").nextIndex == 4, "the cursor stops at the first unprinted post")
        #expect(
            state.failure
                == .output(
                    "cannot write to stdout (No space left on device): 3 of 6 new entries of p were printed and stored; the other 3 come again with the next sync"
                ))
        #expect(store.writes == ["commit [\"1\", \"2\", \"3\"]"])
    }

    /// Every output is handed entries numbered (plain text shows the handle, `--exec` passes
    /// it, JSON shows none): the numbers printed are the numbers stored.
    @Test func entriesAreNumberedBeforePrintingWhateverTheOutput() async throws {
        let store = MemoryStore([posts])
        for n in 1...3 { fetcher.set("http://stub/posts/\(n)", body: post(n)) }
        let output = CountingOutput()
        let (host, _) = host(store, output: output)
        _ = await host.process(.sync(feeds: ["p"]))
        #expect(output.delivered.value.map(\.seq) == [1, 2, 3])
        #expect(store.entries("p").map(\.id) == ["1", "2", "3"] && store.entries("p").map(\.seq) == [1, 2, 3])
    }

    @Test func aFailedFetchIsRecordedWithItsRetryTimeAndChangesNoCursor() async throws {
        let store = MemoryStore([posts, graph])
        fetcher.fail(
            "http://stub/posts/1",
            with: HTTPStatusFailure(status: 503, url: "http://stub/posts/1", retryAfter: .seconds(600)))
        fetcher.set("http://stub/graph", body: #"{"data":[{"id":"1"}]}"#)
        let (host, _) = host(store)
        let state = await host.process(.sync(feeds: ["p", "g"]))
        #expect(
            state.feeds["p"]?.failure
                == .temporary("HTTP 503 from http://stub/posts/1; the server asks to wait 10m (Retry-After)"))
        let record = try store.feed(named: "p")
        #expect(record.nextIndex == 1 && record.lastErrorCode == 75)
        #expect(record.retryNotBefore == Self.now.addingTimeInterval(600))
        #expect(store.entries("g").map(\.id) == ["1"], "the next feed is still synced")
        let later = await host.process(.sync(feeds: ["p"]))
        #expect(later.feeds["p"]?.skippedUntil == Self.now.addingTimeInterval(600), "skipped while Retry-After holds")
        #expect(fetcher.requested.filter { $0.contains("posts") }.count == 1)
    }

    @Test func nextOnAPagedFeedStoresUnreadThenDeliversTheOldest() async throws {
        let store = MemoryStore([graph])
        fetcher.set(
            "http://stub/graph", body: #"{"data":[{"id":"3"},{"id":"2"}],"paging":{"next":"http://stub/graph?2"}}"#)
        fetcher.set("http://stub/graph?2", body: #"{"data":[{"id":"1"}]}"#)
        let output = CountingOutput()
        let (host, _) = host(store, output: output)
        let state = await host.process(.next(feed: "g"))
        #expect(output.delivered.value.map(\.id) == ["1"], "only the delivered entry is printed")
        #expect(store.entries("g").map { "\($0.id)\($0.read ? "r" : "")" } == ["1r", "2", "3"])
        #expect(state.feeds["g"]?.record?.unread == 2)
    }

    @Test func aQuietIndexedFeedCostsOneRequestPerPoll() async throws {
        let store = MemoryStore([posts])
        for n in 1...3 { fetcher.set("http://stub/posts/\(n)", body: post(n)) }
        let (host, _) = host(store)
        await host.process(.sync(feeds: ["p"]))
        #expect(fetcher.requested == (1...4).map { "http://stub/posts/\($0)" }, "a first sync opens the window at once")
        #expect(try store.feed(named: "p").nextIndex == 4)
        await host.process(.sync(feeds: ["p"]))
        #expect(fetcher.requested.count == 5, "then one probe per poll while nothing is new")
        for n in 4...5 { fetcher.set("http://stub/posts/\(n)", body: post(n)) }
        await host.process(.sync(feeds: ["p"]))
        #expect(
            Array(fetcher.requested.suffix(3)) == (4...6).map { "http://stub/posts/\($0)" },
            "a found post widens the window")
        #expect(store.entries("p").map(\.id) == (1...5).map(String.init))
    }

    @Test(arguments: [true, false])
    func anUnknownFeedIs66AndTouchesNothing(locksNeedKnownFeeds: Bool) async {
        let store = MemoryStore([posts], locksNeedKnownFeeds: locksNeedKnownFeeds)
        let (host, _) = host(store)
        let state = await host.process(.next(feed: "nope"))
        #expect(state.feeds["nope"]?.failure == .notFound("no feed named nope"))
        #expect(store.writes.isEmpty && fetcher.requested.isEmpty)
        // A lock that is a file is not taken for an unknown name; one that names nothing is
        // taken first (a round trip fewer for a known name) and let go.
        #expect(store.locksTaken == (locksNeedKnownFeeds ? [] : ["nope"]))
        #expect(store.locksHeld == 0)
    }

    /// `next` looks for a stored unread entry only when the feed's record counts one: a feed
    /// with none goes straight to its fetch (a round trip fewer on a store across a network).
    @Test func nextLooksForAStoredEntryOnlyWhenTheFeedCountsOne() async {
        let store = MemoryStore([posts])
        for n in 1...2 { fetcher.set("http://stub/posts/\(n)", body: post(n)) }
        let (host, _) = host(store)
        #expect(await host.process(.next(feed: "p")).delivered.map(\.id) == ["1"])
        #expect(store.unreadLookUps == 0, "nothing unread: not looked for")
        _ = try? store.commitFetch(feed: "p", entries: [Entry.sample("9", feed: "p")], FetchCommit(fetchedAt: .now))
        #expect(
            await host.process(.next(feed: "p")).delivered.map(\.id) == ["9"], "the stored unread entry, not a fetch")
        #expect(store.unreadLookUps == 1 && fetcher.requested.count == 1)
    }

    @Test(arguments: [true, false])
    func aKnownFeedIsLookedUpOnceUnderItsLockWhenItsLockNamesNothing(locksNeedKnownFeeds: Bool) async {
        let store = MemoryStore([posts], locksNeedKnownFeeds: locksNeedKnownFeeds)
        fetcher.set("http://stub/posts/1", body: post(1))
        let (host, _) = host(store)
        let state = await host.process(.next(feed: "p"))
        #expect(state.delivered.map(\.id) == ["1"])
        #expect(store.locksTaken == ["p"] && store.locksHeld == 0)
        #expect(store.lookUps == (locksNeedKnownFeeds ? 2 : 1), "before the lock, then under it")
    }
}

/// Wraps a reactor to record the mutations reduce sees, through `transform(mutation:)`.

extension FeedMutation {
    /// The mutation's case, with the activity's, for asserting sequences.
    var name: String {
        switch self {
        case .actionStarted: "actionStarted"
        case .loaded: "loaded"
        case .activity(_, let activity):
            switch activity {
            case .idle: "activity idle"
            case .waitingForLock: "activity waitingForLock"
            case .fetching: "activity fetching"
            }
        case .delivered: "delivered"
        case .stored: "stored"
        case .warned: "warned"
        case .connected: "connected"
        case .skipped: "skipped"
        case .failed: "failed"
        }
    }
}
