import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedModel
@testable import FeedReactor
@testable import FeedRendering
@testable import FeedStore

/// `status` as a dashboard: one line a feed under a header, and bare
/// `feedcli` prints a short usage above it. Before, `status` printed the blocks `feeds list` does.
@Suite("status, one line a feed", .timeLimit(.minutes(1)))
struct StatusOverviewTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func record(
        _ name: String, _ kind: FeedKind, unread: Int, total: Int, fetched: TimeInterval?, every: Duration? = nil,
        error: (String, Int32)? = nil, retry: TimeInterval? = nil
    ) -> FeedStatus {
        let fetchedAt = fetched.map { now.addingTimeInterval(-$0) }
        var record = FeedRecord(
            registration: FeedRegistration(name: name, url: "http://x/\(name)", kind: kind),
            lastFetchAt: fetchedAt, lastSuccessAt: error == nil ? fetchedAt : nil, every: every,
            lastError: error?.0, lastErrorCode: error?.1, total: total, unread: unread)
        record.retryNotBefore = retry.map { now.addingTimeInterval($0) }
        return FeedStatus(name: name, record: record)
    }

    @Test func fiveFeedsFiveLines() {
        let statuses = [
            record("fireball", .jsonfeed, unread: 3, total: 48, fetched: 120, every: .seconds(1800)),
            record(
                "hn", .json, unread: 0, total: 30, fetched: 7200, error: ("temporary failure, try later: HTTP 503", 75),
                retry: 600),
            record("memories", .graph, unread: 12, total: 200, fetched: 3 * 86_400, every: EveryDuration.never),
            record("posts", .indexed, unread: 0, total: 0, fetched: nil),
            record("swift", .linked, unread: 1, total: 1, fetched: 42),
        ]
        let text = String(decoding: StatusOverview.render(statuses, now: now), as: UTF8.self)
        #expect(
            text == """
                FEED      KIND      UNREAD  LAST FETCH  NEXT
                fireball  jsonfeed  3/48    2m ago      in 28m
                hn        json      0/30    2h ago      in 10m  ! 75 temporary failure, try later: HTTP 503
                memories  graph     12/200  3d ago      never
                posts     indexed   0/0     never       now
                swift     linked    1/1     42s ago     now

                """, "\n\(text)")
        #expect(StatusOverview.render([], now: now).isEmpty)
    }

    @Test func bareFeedcliPrintsAShortUsageAndTheOverview() async throws {
        let session = StoreSession()
        #expect(try await session.feedcli("read", "--all").status == 0)
        let run = try await Feedcli.run([], environment: ["FEEDCLI_STATE": session.state])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("feedcli: read JSON feeds an entry at a time"))
        #expect(
            run.stdout.contains(
                "\n\nFEED   KIND     UNREAD  LAST FETCH  NEXT\nposts  indexed  0/0     never       now\n"),
            "\(run.stdout)")
        let json = try await session.feedcli("status", "--json")
        #expect((json.json as? [[String: Any]])?.first?["name"] as? String == "posts", "--json as before")
        let details = try await session.feedcli("feeds", "list")
        #expect(details.stdout.contains("  entries: 0, unread: 0"), "feeds list keeps the details")
    }
}
