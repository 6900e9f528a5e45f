import FeedBase
import FeedHTTP
import FeedKinds
import FeedModel
import FeedReactive
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Logging
import Testing

/// The feed reactor as the program wires it: the real HTTP client against a loopback posts
/// server and a real store. (`FastReactorTests` runs it with neither.)
@Suite("FeedReactor against a loopback server", .serialized, .timeLimit(.minutes(3)))
struct FeedReactorTests {
    let posts: PostsServer
    let store: FeedStore
    let host: ReactorHost<FeedReactor>
    let observed = Locked<[FeedReactorState]>([])

    init() throws {
        posts = try PostsServer(available: 3)
        store = try FeedStore.open(at: temporaryStorePath())
        try store.addFeed(FeedRegistration(name: "local", url: posts.url, kind: .indexed), replace: false)
        var options = FetchOptions()
        options.retries = 0
        let fetcher = FeedFetcher(
            http: try HTTPClient(), workQueue: FeedEnvironment.workQueue, options: options,
            scheduler: DispatchScheduler(), random: { 0.5 }, environment: [:],
            logger: Logger(label: "feedcli", factory: { _ in SwiftLogNoOpLogHandler() }))
        let environment = FeedEnvironment(
            store: store, fetcher: fetcher, options: options, output: RecordingOutput(),
            lockQueue: FeedEnvironment.lockQueue, commitQueue: FeedEnvironment.workQueue)
        host = ReactorHost(reactor: FeedReactor(environment: environment))
        _ = host.state.subscribe(onNext: { [observed] state in observed.withLock { $0.append(state) } })
    }

    @Test func nextFetchesStoresAndDeliversWithActivityAroundIt() async throws {
        let state = await host.process(.next(feed: "local"))
        let entry = try #require(state.delivered.first)
        #expect(entry.id == "1" && entry.read && entry.feed == "local")
        #expect(state.feeds["local"]?.activity == .idle)
        #expect(state.feeds["local"]?.record?.nextIndex == 2)
        let activities = observed.value.compactMap { $0.feeds["local"]?.activity }
        #expect(!activities.contains(.waitingForLock), "no other run held the lock: \(activities)")
        #expect(activities.contains(.fetching(url: posts.url + "/1", page: 1)))
        #expect(activities.last == .idle)
        #expect(try store.feed(named: "local").nextIndex == 2, "the cursor is committed")
    }

    /// Regression: the feed lock was let go in the subscription's teardown, after the terminal
    /// event had already started the next queued action, which then waited 30 s for that lock.
    @Test(.timeLimit(.minutes(1))) func twoActionsAreProcessedSerially() async throws {
        posts.gate.hold(from: 1)
        let finished = TestSignal()
        host.send(.next(feed: "local"))
        host.send(.next(feed: "local")) { finished.signal() }
        // Both actions are queued while the first request is held at the server.
        #expect(await posts.gate.waitForArrivals(1))
        posts.gate.open()
        #expect(await finished.wait(seconds: 30))
        let delivered = observed.value.compactMap { $0.delivered.first?.id }
        #expect(delivered.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } } == ["1", "2"])
        #expect(posts.server.peakInFlight == 1, "the second request starts after the first action ended")
    }

    /// Waiting is an activity only while another run holds the feed: the state says so, then
    /// the fetch, then idle once the fetch is committed.
    @Test(.timeLimit(.minutes(1))) func waitingForAnotherRunsLockIsTheFeedsActivity() async throws {
        var held: (any HeldFeedLock)? = try store.lock(feed: "local")
        let finished = TestSignal()
        host.send(.next(feed: "local")) { finished.signal() }
        var waited = false
        for _ in 0..<500 where !waited {
            waited = observed.value.contains { $0.feeds["local"]?.activity == .waitingForLock }
            if !waited { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(waited, "the state says the feed waits for its lock")
        #expect(held != nil)
        held = nil  // the other run ends
        #expect(await finished.wait(seconds: 30))
        let activities = observed.value.compactMap { $0.feeds["local"]?.activity }
        let order = activities.reduce(into: [FeedActivity]()) { if $0.last != $1 { $0.append($1) } }
        #expect(
            order.drop { $0 != .waitingForLock }.prefix(3).elementsEqual([
                .waitingForLock, .idle, .fetching(url: posts.url + "/1", page: 1),
            ]) && order.last == .idle, "\(order)")
    }

    @Test func theEndOfTheFeedIsNotAnError() async throws {
        for _ in 0..<3 { await host.process(.next(feed: "local")) }
        let state = await host.process(.next(feed: "local"))
        #expect(state.delivered.isEmpty)
        #expect(state.failures.isEmpty)
        #expect(state.feeds["local"]?.record?.lastFetchAt != nil, "a 404 is a successful fetch")
        #expect(try store.feed(named: "local").nextIndex == 4, "a 404 leaves the cursor")
    }

    @Test func aServerErrorIsStateAndChangesNoCursor() async throws {
        posts.failNext(500)
        let state = await host.process(.next(feed: "local"))
        #expect(state.delivered.isEmpty)
        #expect(state.feeds["local"]?.failure == .temporary("HTTP 500 from \(posts.url)/1"))
        let record = try store.feed(named: "local")
        #expect(record.nextIndex == 1)
        #expect(record.lastErrorCode == 75)
        let retried = await host.process(.next(feed: "local"))
        #expect(retried.delivered.first?.id == "1", "the next run retries from the same place")
        #expect(try store.feed(named: "local").lastError == nil)
    }

    @Test func statusLoadsEveryFeed() async throws {
        await host.process(.next(feed: "local"))
        let state = await host.process(.loadStatus(feeds: []))
        #expect(state.feeds.keys.sorted() == ["local"], "the built-in posts, unused, went when local came")
        #expect(state.feeds["local"]?.record?.total == 1)
        #expect(state.feeds["local"]?.record?.lastReadID == "1")
        let missing = await host.process(.loadStatus(feeds: ["nope"]))
        #expect(missing.failures == [.notFound("no feed named nope")])
    }
}
