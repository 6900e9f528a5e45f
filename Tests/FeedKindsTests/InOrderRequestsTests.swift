import FeedTesting
import Foundation
import Testing

@testable import FeedBase
@testable import FeedHTTP
@testable import FeedKinds
@testable import FeedReactive

/// The sliding window of an indexed sync's requests: answers arrive on a "client" thread, as
/// the HTTP client's do, and are consumed on a "work" queue, as the reactor consumes them.
@Suite("In-order requests", .timeLimit(.minutes(1)))
struct InOrderRequestsTests {
    /// Requests answered on a thread of their own after a millisecond: 200 with the index as
    /// body, 404 from `end` on, a failure at `failing`.
    final class Server: Sendable {
        let end: Int
        let failing: Int?
        private let client = DispatchQueue(label: "client")
        private let log = Locked<[Int]>([])
        private let logged = NSCondition()

        init(end: Int, failing: Int? = nil) {
            self.end = end
            self.failing = failing
        }

        var started: [Int] { log.value }

        /// Blocks its caller (the work queue's thread, never a test's) until `count` requests
        /// have started, or `seconds` pass: whether they did.
        func waitUntilStarted(_ count: Int, seconds: Double) -> Bool {
            let deadline = Date(timeIntervalSinceNow: seconds)
            logged.lock()
            defer { logged.unlock() }
            while log.value.count < count {
                if !logged.wait(until: deadline) { return log.value.count >= count }
            }
            return true
        }

        func request(_ index: Int) -> Observable<HTTPResponse> {
            Observable { [self] observer in
                logged.lock()
                log.withLock { $0.append(index) }
                logged.broadcast()
                logged.unlock()
                client.asyncAfter(deadline: .now() + .milliseconds(1)) { [self] in
                    if index == failing { return observer.fail(HTTPError(.connectionLost, message: "reset")) }
                    observer.next(
                        HTTPResponse(
                            status: index >= end ? 404 : 200, body: Data("\(index)".utf8), effectiveURL: "/\(index)"))
                    observer.complete()
                }
                return Disposables.empty
            }
        }
    }

    let work = DispatchQueue(label: "work")

    func requests(_ server: Server, count: Int, lookahead: Int = 8) -> InOrderRequests {
        InOrderRequests(
            start: 1, count: count, inFlight: 4, probesFirst: false, lookahead: lookahead,
            request: { server.request($0) }, handOver: { [work] in $0.observe(on: work) })
    }

    /// Collects what `observable` emits, each on the work queue, with `consume` run for each.
    func run(_ observable: Observable<(Int, HTTPResponse)>, consume: @escaping @Sendable (Int) -> Void = { _ in }) async
        -> (indices: [Int], end: Event<Void>?, onWork: Bool)
    {
        let seen = Locked<(indices: [Int], end: Event<Void>?, onWork: Bool)>(([], nil, true))
        let done = TestSignal()
        let key = DispatchSpecificKey<Bool>()
        work.setSpecific(key: key, value: true)
        let subscription = observable.subscribe { event in
            let onWork = DispatchQueue.getSpecific(key: key) == true
            switch event {
            case .next(let (index, _)):
                seen.withLock {
                    $0.indices.append(index)
                    $0.onWork = $0.onWork && onWork
                }
                consume(index)
            case .failed(let error):
                seen.withLock {
                    $0.end = .failed(error)
                    $0.onWork = $0.onWork && onWork
                }
                done.signal()
            case .completed:
                seen.withLock {
                    $0.end = .completed
                    $0.onWork = $0.onWork && onWork
                }
                done.signal()
            }
        }
        _ = await done.wait(seconds: 50)  // a bound for a starved machine (the suite allows a minute)
        subscription.dispose()
        return seen.value
    }

    @Test func answersComeInOrderOnTheWorkQueueAndEndAtTheFirst404() async {
        let server = Server(end: 30)
        let outcome = await run(requests(server, count: 100).observable)
        #expect(outcome.indices == Array(1..<30))
        if case .completed? = outcome.end {} else { Issue.record("ends with \(String(describing: outcome.end))") }
        #expect(outcome.onWork, "every event is handed over")
        #expect(
            server.started.count <= 30 + 4,
            "nothing is requested past the first 404 once it is known, but what was in flight")
    }

    @Test func aFailureEndsIt() async {
        let server = Server(end: 100, failing: 7)
        let outcome = await run(requests(server, count: 50).observable)
        #expect(outcome.indices.allSatisfy { $0 < 7 })
        if case .failed? = outcome.end {} else { Issue.record("ends with \(String(describing: outcome.end))") }
    }

    /// While the consumer is busy with an answer (a batch's commit), the window is refilled
    /// where answers arrive: the requests go on, up to `lookahead` answers ahead of it.
    @Test func requestsGoOnWhileTheConsumerIsBusyUpToTheLookahead() async {
        let server = Server(end: 1_000)
        let startedWhileBusy = Locked<Int?>(nil)
        let outcome = await run(requests(server, count: 100, lookahead: 8).observable) { index in
            guard index == 1 else { return }
            // Busy with the first answer (on the work queue's thread) until the window has
            // started all it may, then a little longer: that nothing more starts can only be
            // seen by waiting for it not to happen (bounded, 0.2 s). The first wait is a bound
            // for a starved machine, not a speed: under the whole suite on two cores, 5 s once
            // saw 12 of the 13 started (the answers' 1 ms timers fired seconds late).
            _ = server.waitUntilStarted(1 + 4 + 8, seconds: 30)
            _ = server.waitUntilStarted(1 + 4 + 8 + 1, seconds: 0.2)
            startedWhileBusy.withLock { $0 = server.started.count }
        }
        // One taken by the consumer, four in flight and eight answered ahead of it.
        #expect(startedWhileBusy.value == 1 + 4 + 8)
        #expect(outcome.indices == Array(1...100))
    }
}
