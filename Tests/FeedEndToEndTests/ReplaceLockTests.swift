import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `feeds add --replace` waits for a run on the feed, as `sync` does: before,
/// a sync running on the old URL wrote its ETag onto the replaced feed.
@Suite("Replacing a feed takes its lock", .timeLimit(.minutes(3)))
struct ReplaceLockTests {
    @Test func aReplaceWaitsForTheSyncOnTheOldURL() async throws {
        let server = try HeldRequestServer(holding: "/old", id: "a")
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/old", kind: "graph")
        let sync = try Feedcli.start(Feedcli.onStore(session.state, ["sync", "g"]))
        #expect(await server.waitForTheHeldRequest(), "the sync holds the feed's lock, waiting on the server")
        let replace = try Feedcli.start(
            Feedcli.onStore(
                session.state, ["feeds", "add", "g", server.baseURL + "/new", "--kind", "graph", "--replace"]))
        #expect(
            await replace.waitUntilItHoldsOpen(fileEndingWith: ".locks/feed-g.lock"),
            "the replace waits on the feed's lock")
        server.release()
        #expect(await sync.finish().status == 0)
        let replaced = await replace.finish()
        #expect(replaced.status == 0, "\(replaced.stderr)")
        let status = try #require(try await session.status("g"))
        #expect(status["url"] as? String == server.baseURL + "/new")
        #expect(status["etag"] is NSNull, "the old URL's validators did not land on the new feed")
    }
}
