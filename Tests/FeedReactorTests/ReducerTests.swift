import FeedModel
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@Suite("FeedReactor.reduce, exhaustively", .timeLimit(.minutes(3)))
struct ReducerTests {
    let reactor: FeedReactor

    init() {
        reactor = FeedReactor(
            environment: FeedEnvironment(
                store: MemoryStore([]), fetcher: StubFetcher(), output: RecordingOutput()))
    }

    static let record = FeedRecord(registration: .defaultFeed, nextIndex: 4, total: 3, unread: 1, lastReadID: "2")

    @Test func aNextThatFetchesAPost() {
        var tester = ReducerTester(reactor)
        tester.send(.actionStarted) { $0.revision = 1 }
        tester.send(.activity(feed: "posts", .waitingForLock)) {
            $0.feeds["posts"] = FeedStatus(name: "posts")
            $0.feeds["posts"]?.activity = .waitingForLock
        }
        tester.send(.loaded(Self.record)) {
            $0.feeds["posts"]?.record = Self.record
            $0.feeds["posts"]?.activity = .idle  // the lock is this run's: no longer waiting
        }
        tester.send(.activity(feed: "posts", .fetching(url: "u/4", page: 1))) {
            $0.feeds["posts"]?.activity = .fetching(url: "u/4", page: 1)
        }
        let entry = Entry.sample("4", read: true)
        var after = Self.record
        after.nextIndex = 5
        after.total = 4
        after.lastReadID = "4"
        after.lastFetchAt = Date(timeIntervalSince1970: 1_795_000_000)
        tester.send(.stored(feed: "posts", count: 1, after)) {
            $0.newEntryCount = 1
            $0.feeds["posts"]?.record = after
            $0.feeds["posts"]?.activity = .idle  // the fetch is committed: nothing in flight
        }
        tester.send(.delivered(entry)) { $0.delivered = [entry] }
    }

    @Test func aSyncTakesTheStoresRecordAsItIs() {
        var start = FeedReactorState()
        var status = FeedStatus(name: "posts", record: Self.record)
        status.record?.lastError = "temporary failure, try later: x"
        start.feeds["posts"] = status
        var tester = ReducerTester(reactor, state: start)
        let entries = [Entry.sample("4"), Entry.sample("5")]
        var after = Self.record
        after.total = 5
        after.unread = 3
        after.validators = Validators(etag: #""abc""#)
        tester.send(.stored(feed: "posts", count: entries.count, after)) {
            $0.newEntryCount = 2
            $0.feeds["posts"]?.record = after
        }
        tester.send(.stored(feed: "posts", count: 0, after))  // nothing new changes nothing else
    }

    @Test func failuresAreState() {
        var tester = ReducerTester(reactor)
        tester.send(.loaded(Self.record)) { $0.feeds["posts"] = FeedStatus(name: "posts", record: Self.record) }
        let failure = FeedFailure.temporary("HTTP 503 from u")
        tester.send(.failed(feed: "posts", failure)) {
            $0.feeds["posts"]?.failure = failure
            $0.feeds["posts"]?.failuresInARow = 1
        }
        tester.send(.failed(feed: nil, .output("cannot write to stdout"))) {
            $0.failure = .output("cannot write to stdout")
        }
        let until = Date(timeIntervalSince1970: 1_795_000_000)
        tester.send(.skipped(feed: "other", until: until)) {
            $0.feeds["other"] = FeedStatus(name: "other")
            $0.feeds["other"]?.skippedUntil = until
        }
        #expect(tester.state.failures == [failure, .output("cannot write to stdout")])
        tester.send(.actionStarted) {
            $0.revision = 1
            $0.failure = nil
            $0.feeds["posts"]?.failure = nil
            $0.feeds["posts"]?.failuresInARow = 0
            $0.feeds["other"]?.skippedUntil = nil
        }
        #expect(tester.state.failures.isEmpty)
    }

    /// A `follow` is one action that lasts for months: a feed's failure stands only until the
    /// feed succeeds again, so the session ends with the state its feeds are in.
    @Test func aFailureStandsUntilTheFeedSucceedsAgain() {
        var tester = ReducerTester(reactor)
        let failure = FeedFailure.commandFailed("--exec command exited 22 for posts @4 (id 4)")
        tester.send(.failed(feed: "posts", failure)) {
            $0.feeds["posts"] = FeedStatus(name: "posts")
            $0.feeds["posts"]?.failure = failure
            $0.feeds["posts"]?.failuresInARow = 1
        }
        tester.send(.failed(feed: "posts", failure)) { $0.feeds["posts"]?.failuresInARow = 2 }
        tester.send(.loaded(Self.record)) { $0.feeds["posts"]?.record = Self.record }  // a round begins: still failing
        #expect(tester.state.failures == [failure])
        tester.send(.stored(feed: "posts", count: 1, Self.record)) {
            $0.newEntryCount = 1
            $0.feeds["posts"]?.failure = nil
            $0.feeds["posts"]?.failuresInARow = 0
        }
        #expect(tester.state.failures.isEmpty, "recovered: nothing to report, exit 0")
        let dropped = FeedFailure.temporary("could not connect")
        tester.send(.failed(feed: "stream", dropped)) {
            $0.feeds["stream"] = FeedStatus(name: "stream")
            $0.feeds["stream"]?.failure = dropped
            $0.feeds["stream"]?.failuresInARow = 1
        }
        tester.send(.connected(feed: "stream")) {
            $0.feeds["stream"]?.failure = nil
            $0.feeds["stream"]?.failuresInARow = 0
        }
    }

    @Test func aFeedKeepsItsNewestWarningsAndCountsThemAll() {
        var start = FeedReactorState()
        start.feeds["g"] = FeedStatus(name: "g")
        start.feeds["g"]?.warnings = (1...FeedStatus.keptWarnings).map { "w\($0)" }
        start.feeds["g"]?.warningCount = FeedStatus.keptWarnings
        var tester = ReducerTester(reactor, state: start)
        tester.send(.warned(feed: "g", "one more")) {
            $0.feeds["g"]?.warnings = (2...FeedStatus.keptWarnings).map { "w\($0)" } + ["one more"]
            $0.feeds["g"]?.warningCount = FeedStatus.keptWarnings + 1
        }
    }

    @Test func aWarningIsStateUntilTheNextAction() {
        var tester = ReducerTester(reactor)
        tester.send(.warned(feed: "g", "the next page u answered HTTP 404")) {
            $0.feeds["g"] = FeedStatus(name: "g")
            $0.feeds["g"]?.warnings = ["the next page u answered HTTP 404"]
            $0.feeds["g"]?.warningCount = 1
        }
        tester.send(.actionStarted) {
            $0.revision = 1
            $0.feeds["g"]?.warnings = []
            $0.feeds["g"]?.warningCount = 0
        }
    }

    @Test func actionStartedForgetsThePreviousOutput() {
        var start = FeedReactorState()
        start.revision = 7
        start.delivered = [.sample("1")]
        start.newEntryCount = 1
        var tester = ReducerTester(reactor, state: start)
        tester.send(.actionStarted) {
            $0.revision = 8
            $0.delivered = []
            $0.newEntryCount = 0
        }
    }

    @Test func errorsThatStopTheRunBecomeAFailedMutation() {
        #expect(
            reactor.mutation(for: FeedFailure.interrupted, action: .next(feed: "posts"))
                == .failed(feed: nil, .interrupted))
        guard
            case .failed(nil, .storeAccess(let message)) = reactor.mutation(for: TestError(), action: .sync(feeds: []))
        else {
            Issue.record("an unknown error is a store failure that says what it is")
            return
        }
        #expect(message.contains("TestError"))
    }
}
