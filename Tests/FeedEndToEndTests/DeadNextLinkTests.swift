import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedBase
@testable import FeedReactor
@testable import FeedStore

/// A next-page link that answers 404 or 410 ends the walk like a last page:
/// what was fetched is kept and delivered, one warning on stderr, exit 0. Before, the feed failed
/// with 69, stored nothing of its first page, and did so on every later run.
@Suite("A dead next-page link ends the walk", .timeLimit(.minutes(3)))
struct DeadNextLinkTests {
    @Test(arguments: [404, 410])
    func theWalkEndsThereAndKeepsWhatItFetched(status: Int) async throws {
        let top = Locked(["b", "a"])
        let server = try LoopbackServer { request, connection in
            if request.path == "/feed" {
                let data = top.value.map { #"{"id":"\#($0)","message":"m \#($0)"}"# }.joined(separator: ",")
                connection.respond(200, text: #"{"data":[\#(data)],"paging":{"next":"/gone?after=x"}}"#)
            } else {
                connection.respond(status, text: "{}")
            }
        }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/feed", kind: "graph")
        let first = try await session.feedcli("sync", "g", "--jsonl")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(JSONLines.ids(first.stdout) == ["a", "b"], "the first page is delivered")
        #expect(first.stderr.split(separator: "\n").count == 1)
        #expect(
            first.stderr.contains("g: warning: the next page") && first.stderr.contains("HTTP \(status)"),
            "\(first.stderr)")
        #expect(try await session.status("g")?["entries"] as? Int == 2)
        #expect(try await session.status("g")?["last_error"] is NSNull)

        top.withLock { $0.insert("c", at: 0) }
        let second = try await session.feedcli("sync", "g", "--jsonl")
        #expect(
            second.status == 0 && JSONLines.ids(second.stdout) == ["c"], "new entries keep arriving: \(second.stderr)")
    }

    @Test func aTransientFailureOfANextPageStillFailsTheFeed() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path == "/feed" {
                connection.respond(200, text: #"{"data":[{"id":"a"}],"paging":{"next":"/later"}}"#)
            } else {
                connection.respond(503, text: "{}")
            }
        }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/feed", kind: "graph")
        let run = try await session.feedcli("sync", "g", "--retries", "0")
        #expect(run.status == 75, "\(run.stderr)")
        #expect(
            try await session.status("g")?["entries"] as? Int == 0, "a failed walk stores nothing and retries next run")
    }
}
