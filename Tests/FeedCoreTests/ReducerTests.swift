import FeedCore
import Testing

@Suite("FeedReactor.reduce, exhaustively")
struct ReducerTests {
    let reactor: FeedReactor

    init() throws {
        let environment = FeedEnvironment(
            store: try FeedStore.open(at: temporaryStorePath()), http: try HTTPClient())
        reactor = FeedReactor(environment: environment)
    }

    static let record = FeedRecord(registration: .defaultFeed, nextIndex: 4, total: 3, unread: 1, lastReadID: "2")

    @Test func aNextThatFetchesAPost() {
        var tester = ReducerTester(reactor)
        tester.send(.actionStarted) { $0.revision = 1 }
        tester.send(.activity(feed: "posts", .waitingForLock)) {
            $0.feeds["posts"] = FeedStatus(name: "posts")
            $0.feeds["posts"]?.activity = .waitingForLock
        }
        tester.send(.loaded(Self.record)) { $0.feeds["posts"]?.record = Self.record }
        tester.send(.activity(feed: "posts", .fetching(url: "u/4", page: 1))) {
            $0.feeds["posts"]?.activity = .fetching(url: "u/4", page: 1)
        }
        let entry = Entry.sample("4", read: true)
        let commit = FetchCommit(fetchedAt: "2026-11-21T19:00:00Z", nextIndex: 5)
        tester.send(.stored(feed: "posts", entries: [entry], commit)) {
            $0.feeds["posts"]?.record?.nextIndex = 5
            $0.feeds["posts"]?.record?.total = 4
            $0.feeds["posts"]?.record?.lastFetchAt = "2026-11-21T19:00:00Z"
        }
        tester.send(.delivered(entry)) {
            $0.delivered = [entry]
            $0.feeds["posts"]?.record?.lastReadID = "4"
        }
        tester.send(.activity(feed: "posts", .idle)) { $0.feeds["posts"]?.activity = .idle }
    }

    @Test func aSyncStoresUnreadEntriesAndClearsTheLastError() {
        var start = FeedReactorState()
        var status = FeedStatus(name: "posts", record: Self.record)
        status.record?.lastError = "temporary failure, try later: x"
        status.record?.lastErrorCode = 75
        status.record?.retryNotBefore = "2026-11-21T18:00:00Z"
        start.feeds["posts"] = status
        var tester = ReducerTester(reactor, state: start)
        let entries = [Entry.sample("4"), Entry.sample("5")]
        let validators = Validators(etag: #""abc""#, lastModified: nil)
        tester.send(.stored(feed: "posts", entries: entries, FetchCommit(fetchedAt: "T", nextIndex: 6, validators: validators))) {
            $0.newEntries = entries
            $0.feeds["posts"]?.record?.total = 5
            $0.feeds["posts"]?.record?.unread = 3
            $0.feeds["posts"]?.record?.nextIndex = 6
            $0.feeds["posts"]?.record?.lastFetchAt = "T"
            $0.feeds["posts"]?.record?.validators = validators
            $0.feeds["posts"]?.record?.lastError = nil
            $0.feeds["posts"]?.record?.lastErrorCode = nil
            $0.feeds["posts"]?.record?.retryNotBefore = nil
        }
        tester.send(.upToDate(feed: "posts")) { $0.feeds["posts"]?.isUpToDate = true }
    }

    @Test func failuresAreState() {
        var tester = ReducerTester(reactor)
        tester.send(.loaded(Self.record)) { $0.feeds["posts"] = FeedStatus(name: "posts", record: Self.record) }
        let failure = FeedFailure.temporary("HTTP 503 from u")
        tester.send(.failed(feed: "posts", failure, retryNotBefore: "2026-11-21T20:00:00Z")) {
            $0.feeds["posts"]?.failure = failure
            $0.feeds["posts"]?.record?.lastError = failure.description
            $0.feeds["posts"]?.record?.lastErrorCode = 75
            $0.feeds["posts"]?.record?.retryNotBefore = "2026-11-21T20:00:00Z"
        }
        tester.send(.failed(feed: nil, .storeAccess("disk"), retryNotBefore: nil)) { $0.failure = .storeAccess("disk") }
        tester.send(.skipped(feed: "other", until: "U")) {
            $0.feeds["other"] = FeedStatus(name: "other")
            $0.feeds["other"]?.skippedUntil = "U"
        }
        #expect(tester.state.failures == [failure, .storeAccess("disk")])
        tester.send(.actionStarted) {
            $0.revision = 1
            $0.failure = nil
            $0.feeds["posts"]?.failure = nil
            $0.feeds["other"]?.skippedUntil = nil
        }
        #expect(tester.state.failures.isEmpty)
    }

    @Test func actionStartedForgetsThePreviousOutput() {
        var start = FeedReactorState()
        start.revision = 7
        start.delivered = [.sample("1")]
        start.newEntries = [.sample("2")]
        var status = FeedStatus(name: "posts")
        status.isUpToDate = true
        start.feeds["posts"] = status
        var tester = ReducerTester(reactor, state: start)
        tester.send(.actionStarted) {
            $0.revision = 8
            $0.delivered = []
            $0.newEntries = []
            $0.feeds["posts"]?.isUpToDate = false
        }
    }

    @Test func unexpectedErrorsBecomeAFailedMutation() {
        #expect(reactor.mutation(for: FeedFailure.badData("x"), action: .next(feed: "posts"))
            == .failed(feed: "posts", .badData("x"), retryNotBefore: nil))
        #expect(reactor.mutation(for: TestError(), action: .sync(feeds: []))
            == .failed(feed: nil, .storeAccess("TestError(id: 0)"), retryNotBefore: nil))
    }
}
