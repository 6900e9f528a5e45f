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
import Testing

/// A fetcher whose streams are canned: each connection gets the next script of parts, sent at
/// once, then the connection ends (completes) or fails.
private final class StreamStub: FeedFetching {
    struct Connection: Sendable {
        var parts: [HTTPStreamPart]
        var failure: (any Error)?
    }
    private let connections: Locked<[Connection]>
    let lastEventIDs = Locked<[String?]>([])

    init(_ connections: [Connection]) { self.connections = Locked(connections) }

    func get(_ url: String, feed: FeedRegistration, validators: Validators?, acceptsNotFound: Bool) -> Observable<
        HTTPResponse
    > {
        .fail(FeedFailure.configuration("no polling here"))
    }

    func stream(_ url: String, feed: FeedRegistration, lastEventID: String?, idleTimeout: Duration) -> Observable<
        HTTPStreamPart
    > {
        Observable { [self] observer in
            lastEventIDs.withLock { $0.append(lastEventID) }
            let next = connections.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let next else {
                observer.fail(HTTPError(.couldNotConnect, message: "no more connections scripted"))
                return Disposables.empty
            }
            for part in next.parts { observer.next(part) }
            if let failure = next.failure { observer.fail(failure) } else { observer.complete() }
            return Disposables.empty
        }
    }

    static let head = HTTPStreamPart.head(
        HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "text/event-stream")]),
            effectiveURL: "http://stub/events"))
    static func events(_ ids: ClosedRange<Int>) -> HTTPStreamPart {
        .bytes(Array(ids.map { "id: \($0)\ndata: {\"id\":\"\($0)\",\"title\":\"t\($0)\"}\n\n" }.joined().utf8))
    }
}

/// `follow` through the reactor with an in-memory store, canned connections and a virtual clock:
/// every mutation in order, the position committed with the entries, a reconnection from the
/// last event id, the session's ends.
@Suite("FeedReactor: following streams", .timeLimit(.minutes(1)))
struct StreamReactorTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    let feed = FeedRegistration(name: "s", url: "http://stub/events", kind: .sse)

    private func run(
        _ fetcher: StreamStub, store: MemoryStore, scheduler: TestScheduler, limits: FollowLimits,
        drive: (TestScheduler) -> Void = { _ in }
    ) -> (FeedReactorState, [FeedMutation]) {
        let mutations = Locked<[FeedMutation]>([])
        let environment = FeedEnvironment(
            store: store, fetcher: fetcher, output: RecordingOutput(),
            now: { Self.now }, scheduler: scheduler, random: { 0 })
        let host = ReactorHost(
            reactor: RecordingReactor(base: FeedReactor(environment: environment), mutations: mutations))
        let done = Locked(false)
        host.send(.follow(feeds: [], limits: limits)) { done.withLock { $0 = true } }
        for _ in 0..<100 where !done.value { drive(scheduler) }
        #expect(done.value, "the session ended")
        return (host.currentState, mutations.value)
    }

    @Test func eventsAreStoredWithTheirPositionAndAReconnectionStartsFromIt() throws {
        let store = MemoryStore([feed])
        let fetcher = StreamStub([
            .init(parts: [StreamStub.head, StreamStub.events(1...2)], failure: HTTPError(.connectionLost)),
            .init(parts: [StreamStub.head, StreamStub.events(3...3)]),
        ])
        let (state, mutations) = run(
            fetcher, store: store, scheduler: TestScheduler(), limits: FollowLimits(maxEntries: 3)
        ) {
            $0.advance(by: .seconds(1))
        }
        #expect(mutations.map(\.name) == ["actionStarted", "loaded", "connected", "stored", "connected", "stored"])
        #expect(state.feeds["s"]?.failure == nil, "a drop after the stream answered is no failure")
        #expect(fetcher.lastEventIDs.value == [nil, "2"], "reconnected from the last event id")
        let record = try store.feed(named: "s")
        #expect(record.total == 3 && record.stream == StreamPosition(lastEventID: "3", lastEventAt: Self.now))
    }

    @Test func maxEntriesDeliversNoMoreAndLeavesThePositionForTheRest() throws {
        let store = MemoryStore([feed])
        let fetcher = StreamStub([.init(parts: [StreamStub.head, StreamStub.events(1...5)])])
        let (_, mutations) = run(fetcher, store: store, scheduler: TestScheduler(), limits: FollowLimits(maxEntries: 2))
        #expect(mutations.map(\.name) == ["actionStarted", "loaded", "connected", "stored"])
        let record = try store.feed(named: "s")
        #expect(record.total == 2)
        #expect(record.stream == nil, "entries 3-5 were not delivered: the position stays for them")
    }

    @Test func maxTimeEndsASessionWhoseServerNeverAnswers() throws {
        let store = MemoryStore([feed])
        let fetcher = StreamStub([])  // every connection fails: reconnections, with backoff
        let scheduler = TestScheduler()
        let (state, mutations) = run(
            fetcher, store: store, scheduler: scheduler, limits: FollowLimits(maxTime: .seconds(10))
        ) {
            $0.advance(by: .seconds(1))
        }
        // A stream that cannot connect is tried again, and failing until it connects: the
        // session ends with that failure (75), each try recorded in the store.
        #expect(state.feeds["s"]?.failure?.exitCode == 75)
        #expect(state.feeds["s"]?.failuresInARow == mutations.filter { $0.name == "failed" }.count)
        #expect((state.feeds["s"]?.failuresInARow ?? 0) >= 4)
        #expect(try store.feed(named: "s").lastErrorCode == 75, "status shows it")
        #expect(scheduler.requestedDelays.contains(.seconds(10)))
        // The looks of a follow of every feed at the store.
        let watches = [FeedReactor.watchInterval, FeedReactor.unmarkedWatchInterval]
        let waits = scheduler.requestedDelays.filter {
            $0 != .seconds(10) && $0 != .milliseconds(200) && !watches.contains($0)
        }
        #expect(
            Array(waits.prefix(4)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)], "backoff doubles: \(waits)")
    }
}
