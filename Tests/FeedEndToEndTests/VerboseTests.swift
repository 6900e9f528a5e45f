import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `--verbose` is one plain line per request; `-vv` adds what was sent and what came back, never
/// a token. Before, each line carried a time, a level and `[FeedCore]`.
@Suite("--verbose and -vv", .timeLimit(.minutes(1)))
struct VerboseTests {
    @Test func oneLineARequestAndDetailsUnderTwo() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200, headers: [("ETag", "\"v1\""), ("Content-Type", "application/json")], text: "[{\"id\":\"a\"}]")
        }
        let session = StoreSession()
        try await session.add("l", server.baseURL + "/l", kind: "linked")
        let one = try await session.run(["sync", "l", "-v"])
        #expect(one.status == 0)
        let lines = one.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(one.stderr)")
        #expect(lines.first?.hasPrefix("feedcli: GET \(server.baseURL)/l -> 200 in ") == true, "\(one.stderr)")

        let two = try await Feedcli.run(
            Feedcli.onStore(session.state, ["sync", "l", "-vv", "--force"]), environment: ["FEEDCLI_TOKEN": "s3cr3t"])
        // feedcli's own headers are said too (it said "no headers of its own").
        #expect(
            two.stderr.contains(
                "feedcli: GET \(server.baseURL)/l sending User-Agent: feedcli/0.2.0; Accept-Encoding: (what curl decodes); "
                    + "Authorization: Bearer (a token, not shown); If-None-Match: \"v1\""), "\(two.stderr)")
        #expect(server.requests.last?.header("User-Agent") == "feedcli/0.2.0", "the header said is the header sent")
        #expect(two.stderr.contains("-> 304 in ") || two.stderr.contains("-> 200 in "))
        #expect(two.stderr.contains("answered ") && two.stderr.contains("ETag: \"v1\""), "\(two.stderr)")
        #expect(!two.stderr.contains("s3cr3t"))
    }
}
