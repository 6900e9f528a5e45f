import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// A nearly full disk records what fits: a sync commits in batches of about a
/// page, so when the store cannot grow any more the run stops at its first failed commit (74),
/// having printed at most one batch it could not record, and the next run delivers only the rest.
/// Before, a 1,000-entry walk was one commit: every run printed all 1,000 and stored none.
///
/// The full disk is `ulimit -f` (RLIMIT_FSIZE) with SIGXFSZ ignored, so the store's writes fail
/// with EFBIG past the limit while stdout (a pipe) is not limited.
@Suite("Bounded batches: a nearly full disk keeps what fits", .timeLimit(.minutes(3)))
struct BoundedBatchTests {
    @Test func aWalkCommitsInBatchesAndTheNextRunDeliversTheRest() async throws {
        let pages = 10
        let perPage = 100
        let server = try LoopbackServer { request, connection in
            let page = Int(request.path.split(separator: "=").last ?? "1") ?? 1
            let first = (pages - page + 1) * perPage  // newest first
            let data = (0..<perPage).map { offset in
                #"{"id":"\#(first - offset)","message":"\#(String(repeating: "text ", count: 60))"}"#
            }.joined(separator: ",")
            let next = page < pages ? #""next":"/feed?page=\#(page + 1)""# : ""
            connection.respond(200, text: #"{"data":[\#(data)],"paging":{\#(next)}}"#)
        }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/feed?page=1", kind: "graph")
        let limited = try await Feedcli.shell(
            #"""
            trap '' XFSZ
            ulimit -f 600   # 300 KiB: the store's journal fills up part way through the 1,000 entries
            "$FEEDCLI" sync g --jsonl --max-pages 10 --retries 0 --state "$S" | wc -l
            echo "status ${PIPESTATUS[0]}"
            """#, environment: ["S": session.state])
        let words = limited.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let printed = try #require(words.first)
        let status = try #require(words.last)
        #expect(status == 74, "the first failed commit stops the run: \(limited.stdout) \(limited.stderr)")
        let stored = try #require(try await session.status("g")?["entries"] as? Int)
        #expect(stored > 0 && stored < 1000, "what fits is recorded: \(stored)")
        #expect(
            printed - stored <= 100, "at most one batch printed and not recorded: \(printed) printed, \(stored) stored")

        let rest = try await session.feedcli("sync", "g", "--jsonl", "--max-pages", "10")
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(JSONLines.ids(rest.stdout).count == 1000 - stored, "only the rest is delivered")
        #expect(try await session.status("g")?["entries"] as? Int == 1000)
    }

    /// A feed delivered in several batches is still one block: no other feed prints in between.
    @Test func aFeedsBatchesAreOneBlock() async throws {
        func server(_ prefix: String) throws -> LoopbackServer {
            try LoopbackServer { request, connection in
                let page = Int(request.path.split(separator: "=").last ?? "1") ?? 1
                let data = (0..<100).map { #"{"id":"\#(prefix)\#(page)-\#($0)"}"# }.joined(separator: ",")
                let next = page < 3 ? #""next":"/feed?page=\#(page + 1)""# : ""
                connection.respond(200, text: #"{"data":[\#(data)],"paging":{\#(next)}}"#)
            }
        }
        let (a, b) = (try server("a"), try server("b"))
        let session = StoreSession()
        #expect(try await session.feedcli("feeds", "remove", "posts").status == 0)
        try await session.add("a", a.baseURL + "/feed?page=1", kind: "graph")
        try await session.add("b", b.baseURL + "/feed?page=1", kind: "graph")
        let run = try await session.feedcli("sync", "--jsonl", "--jobs", "2")
        #expect(run.status == 0, "\(run.stderr)")
        let feeds = JSONLines.objects(run.stdout).compactMap { $0["feed"] as? String }
        #expect(feeds.count == 600)
        let runs = zip(feeds, feeds.dropFirst()).filter { $0 != $1 }.count + 1
        #expect(runs == 2, "each feed's 300 entries (three batches) in one block")
    }
}
