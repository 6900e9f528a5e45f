import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Exit codes blame the right party: a server's `file:` or `ftp:` next link
/// is the server's, never the user's configuration (78): it ends the walk with a warning, keeping
/// what was fetched; a feed removed while a `sync` of all feeds runs is
/// skipped, not 66.
@Suite("Exit codes blame the right party", .timeLimit(.minutes(3)))
struct BlameTests {
    @Test(arguments: [
        ("file:///etc/passwd", "is not an http or https URL"),
        ("ftp://files.example/next", "is not an http or https URL"),
        ("http://127.0.0.1:99999/x", "has a bad port"),
        ("http://127.0.0.1:8/?c=" + String(repeating: "x", count: 9000), "is longer than 8192 bytes"),
    ])
    func aServersUnusableNextLinkEndsTheWalkKeepingThePage(link: String, why: String) async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"{"data":[{"id":"a"}],"paging":{"next":"\#(link)"}}"#)
        }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/feed", kind: "graph")
        let run = try await session.feedcli("sync", "g", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(JSONLines.ids(run.stdout) == ["a"], "the first page is kept")
        #expect(run.stderr.contains(why) && run.stderr.contains("the walk ended there"), "\(run.stderr)")
    }

    /// A next link too long for the server (414) ends the walk like a 404.
    @Test func aNextLinkAnswering414EndsTheWalk() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path.hasPrefix("/next") { return connection.respond(414, text: "URI Too Long") }
            connection.respond(200, text: #"{"data":[{"id":"a"}],"paging":{"next":"/next?c=long"}}"#)
        }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/feed", kind: "graph")
        let run = try await session.feedcli("sync", "g", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(JSONLines.ids(run.stdout) == ["a"])
        #expect(run.stderr.contains("answered HTTP 414"), "\(run.stderr)")
    }

    @Test func aFeedRemovedDuringASyncOfAllFeedsIsSkipped() async throws {
        let server = try HeldRequestServer(holding: "/slow")
        let session = StoreSession()
        #expect(try await session.feedcli("feeds", "remove", "posts").status == 0)
        try await session.add("a", server.baseURL + "/slow", kind: "graph")
        try await session.add("b", server.baseURL + "/fast", kind: "graph")
        // One feed at a time: `a` holds the run while `b` is removed.
        let sync = try Feedcli.start(Feedcli.onStore(session.state, ["sync", "--jobs", "1", "--jsonl"]))
        #expect(await server.waitForTheHeldRequest(), "the run is on `a`, holding it")
        #expect(try await session.feedcli("feeds", "remove", "b").status == 0)
        server.release()
        let run = await sync.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty && JSONLines.ids(run.stdout) == ["x"])
    }
}
