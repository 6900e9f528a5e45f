import Foundation
import Testing

/// Exit codes blame the right party (issue 19, item 10): a server's `file:` or `ftp:` next link
/// is bad server data (65), not the user's configuration (78); a feed removed while a `sync` of
/// all feeds runs is skipped, not 66.
@Suite("Exit codes blame the right party", .timeLimit(.minutes(3)))
struct BlameTests {
    @Test(arguments: ["file:///etc/passwd", "ftp://files.example/next"])
    func aServersNonHTTPNextLinkIsBadData(link: String) throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"{"data":[{"id":"a"}],"paging":{"next":"\#(link)"}}"#)
        }
        let session = StoreSession()
        try session.add("g", server.baseURL + "/feed", kind: "graph")
        let run = try session.feedcli("sync", "g")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("is not an http or https URL"), "\(run.stderr)")
    }

    @Test func aFeedRemovedDuringASyncOfAllFeedsIsSkipped() throws {
        let server = try HeldRequestServer(holding: "/slow")
        let session = StoreSession()
        #expect(try session.feedcli("feeds", "remove", "posts").status == 0)
        try session.add("a", server.baseURL + "/slow", kind: "graph")
        try session.add("b", server.baseURL + "/fast", kind: "graph")
        // One feed at a time: `a` holds the run while `b` is removed.
        let sync = try Feedcli.start(Feedcli.onStore(session.state, ["sync", "--jobs", "1", "--jsonl"]))
        #expect(server.waitForTheHeldRequest(), "the run is on `a`, holding it")
        #expect(try session.feedcli("feeds", "remove", "b").status == 0)
        let run = sync.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty && JSONLines.ids(run.stdout) == ["x"])
    }
}
