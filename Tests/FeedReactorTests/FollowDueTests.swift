import FeedModel
import FeedReactor
import Foundation
import Testing

/// When `follow` polls a feed next (`FeedReactor.untilDue`): its `--every` (else 15 minutes)
/// after its last fetch, never before the server's Retry-After, never for `--every never`.
@Suite("follow: when a polled feed is due")
struct FollowDueTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let feed = FeedRegistration(name: "f", url: "http://127.0.0.1:9/f.json", kind: .jsonfeed)

    func record(lastFetch: TimeInterval?, every: Duration? = nil, retryIn: TimeInterval? = nil) -> FeedRecord {
        FeedRecord(
            registration: feed, retryNotBefore: retryIn.map { now.addingTimeInterval($0) },
            lastFetchAt: lastFetch.map { now.addingTimeInterval(-$0) }, every: every)
    }

    @Test func aFeedIsDueItsEveryAfterItsLastFetchElseEveryFifteenMinutes() {
        #expect(FeedReactor.untilDue(record(lastFetch: nil), now: now) == .zero, "never fetched: at once")
        #expect(FeedReactor.untilDue(record(lastFetch: 60), now: now) == .seconds(14 * 60))
        #expect(FeedReactor.untilDue(record(lastFetch: 60, every: .seconds(120)), now: now) == .seconds(60))
        #expect(
            FeedReactor.untilDue(record(lastFetch: 600, every: .seconds(120)), now: now) == .zero, "overdue: at once")
    }

    @Test func retryAfterPutsItOffAndNeverMeansNotAgain() {
        #expect(
            FeedReactor.untilDue(record(lastFetch: 60, every: .seconds(120), retryIn: 300), now: now) == .seconds(300))
        #expect(
            FeedReactor.untilDue(record(lastFetch: 60, every: .seconds(120), retryIn: 10), now: now) == .seconds(60))
        #expect(FeedReactor.untilDue(record(lastFetch: nil, every: EveryDuration.never), now: now) == nil)
    }
}
