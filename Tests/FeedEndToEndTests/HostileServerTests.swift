import FeedCore
import FeedModel
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// What a hostile or careless server can send, end to end through the binary: numbers that
/// overflow, ids that differ only past a double's precision, NUL, a BOM, duplicate keys, huge
/// pages, huge headers, huge error bodies. Every one ends in an entry, a skipped item or a clear
/// failure of that feed, and later feeds are still synced.
@Suite("Hostile servers end to end", .serialized, .timeLimit(.minutes(3)))
struct HostileServerTests {
    let session = StoreSession()

    func objects(_ run: FeedcliRun) -> [[String: Any]] { JSONLines.objects(run.stdout) }

    /// Serves `body` at every path, once per request, with `headers`.
    func serve(_ body: String, status: Int = 200, headers: [(String, String)] = []) throws -> LoopbackServer {
        try LoopbackServer { _, connection in connection.respond(status, headers: headers, text: body) }
    }

    @Test func anIndexedIdAtInt64MaxIsStoredAndTheCursorMovesByTheIndex() async throws {
        let server = try LoopbackServer { request, connection in
            guard request.path == "/p/1" else { return connection.respond(404, text: "{}") }
            connection.respond(
                200, text: #"{"userId":99999999999999999999,"id":9223372036854775807,"title":"t","body":"b"}"#)
        }
        let later = try PagedServer(kind: .linked, count: 2)
        try await session.add("a-big", server.baseURL + "/p", kind: "indexed")
        try await session.add("b-later", later.url, kind: "linked")
        let run = try await session.feedcli("sync", "a-big", "b-later", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(objects(run).compactMap { $0["id"] as? String }.sorted() == ["1", "2", "9223372036854775807"])
        #expect(objects(run).first { $0["feed"] as? String == "a-big" }?["author"] as? String == "99999999999999999999")
        #expect(
            try await session.requireStatus("a-big")["next_index"] as? Int == 2,
            "the index requested, not the post's id")
        #expect(try await session.feedcli("sync", "a-big").status == 0, "and again")
    }

    @Test func aRetryAfterOfInt64MaxIsCappedAtSevenDays() async throws {
        let server = try serve("{}", status: 503, headers: [("Retry-After", "9223372036854775807")])
        let later = try PagedServer(kind: .linked, count: 1)
        try await session.add("a-busy", server.baseURL + "/feed", kind: "linked")
        try await session.add("b-later", later.url, kind: "linked")
        let run = try await session.feedcli("sync", "a-busy", "b-later", "--jsonl")
        #expect(run.status == 75)
        #expect(objects(run).map { $0["id"] as? String } == ["1"], "the later feed is synced")
        let busy = try await session.requireStatus("a-busy")
        let until = try #require(Timestamp.parse(busy["retry_not_before"] as? String ?? ""))
        #expect(until.timeIntervalSinceNow > 6.9 * 86_400 && until.timeIntervalSinceNow <= 7 * 86_400 + 5)
    }

    /// A server that closes without a byte of answer is "try later", as a reset is: retried,
    /// then 75. It was 76 ("not HTTP") after one request.
    @Test func aServerClosingWithoutAnAnswerIsRetriedThenTryLater() async throws {
        let server = try LoopbackServer { _, connection in connection.close() }
        try await session.add("silent", server.baseURL + "/feed", kind: "linked")
        let run = try await Feedcli.run(["sync", "silent", "--retries", "2", "--state", session.state])
        #expect(run.status == 75, "\(run.stderr)")
        #expect(server.requests.count == 3, "asked once and retried twice: \(server.requests.count)")
    }

    @Test func idsKeepEveryDigitNulAndEveryCharacterThroughTheStore() async throws {
        let server = try serve(
            #"""
            [{"id":123456789012345678901234567890,"title":"a"},{"id":123456789012345678901234567891,"title":"b"},
             {"id":1.5},{"id":1e300},{"id":"x\u0000y","title":"nul\u0000tail"},{"id":"x\u0000z","title":"second"},
             {"id":7,"title":"first","id":8,"title":"last"}]
            """#)
        try await session.add("l", server.baseURL + "/feed", kind: "linked")
        let run = try await session.feedcli("sync", "l", "--jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let expected = [
            "8", "x\u{0}z", "x\u{0}y", "1e300", "1.5", "123456789012345678901234567891",
            "123456789012345678901234567890",
        ]
        #expect(objects(run).map { $0["id"] as? String } == expected)
        let listed = try await session.feedcli("list", "l", "--jsonl")
        #expect(objects(listed).map { $0["id"] as? String } == expected, "stored and read back exactly")
        #expect(objects(listed).map { $0["title"] as? String }.contains("nul\u{0}tail"))
        let duplicate = try #require(objects(listed).first)
        #expect(duplicate["title"] as? String == "last")
        #expect((duplicate["source"] as? [String: Any])?["id"] as? Int == 8, "jq reads source's id as the last one too")
        #expect(try await session.feedcli("show", "1.5", "--feed", "l").status == 0)
    }

    @Test func aJSONFeedWithAByteOrderMarkSyncs() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200,
                body: [0xEF, 0xBB, 0xBF]
                    + Array(#"{"version":"https://jsonfeed.org/version/1.1","title":"T","items":[{"id":"a"}]}"#.utf8))
        }
        try await session.add("bom", server.baseURL + "/feed.json", kind: "jsonfeed")
        #expect(objects(try await session.feedcli("sync", "bom", "--jsonl")).map { $0["id"] as? String } == ["a"])
    }

    @Test func aPageBeyondSQLitesVariableLimitIsOneCommit() async throws {
        let body = "[" + (1...33_000).map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]"
        let server = try serve(body)
        try await session.add("huge", server.baseURL + "/feed", kind: "linked")
        let run = try await Feedcli.shell(
            #""$FEEDCLI" sync huge --state "$S" >/dev/null"#, environment: ["S": session.state])
        #expect(run.status == 0, "\(run.stderr.prefix(300))")
        #expect(try await session.requireStatus("huge")["entries"] as? Int == 33_000)
        #expect(try await session.feedcli("sync", "huge").stdout.isEmpty, "all known the second time")
    }

    @Test func errorTextsCarryAShortExcerptOnly() async throws {
        let server = try serve("<" + String(repeating: "x", count: 600_000))
        try await session.add("junk", server.baseURL + "/feed", kind: "linked")
        let run = try await session.feedcli("sync", "junk")
        #expect(run.status == 65)
        #expect(run.stderr.count < 400, "\(run.stderr.count) characters")
        let lastError = try #require(try await session.requireStatus("junk")["last_error"] as? String)
        #expect(lastError.count < 400 && lastError.contains("it starts «<xxxx"))
    }

    @Test func oversizedResponseHeadersAreReportedAsSuch() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200, headers: (0..<40).map { ("X-Filler-\($0)", String(repeating: "y", count: 8000)) }, text: "[]")
        }
        try await session.add("headers", server.baseURL + "/feed", kind: "linked")
        let run = try await session.feedcli("sync", "headers")
        #expect(run.status == 76, "\(run.stderr)")
        #expect(run.stderr.contains("the response headers exceed 256 KiB"))
    }

    @Test func aFeedThatGrowsBetweenBoundedRunsIsStoredCompletelyOnce() async throws {
        for kind in [PagedServer.Kind.graph, .linked] {
            let server = try PagedServer(kind: kind, count: 40, pageSize: 5)
            let name = "grow-\(kind)"
            try await session.add(name, server.url, kind: kind == .graph ? "graph" : "linked")
            #expect(try await session.feedcli("sync", name, "--max-pages", "2").status == 0)
            server.publish(41...45)
            for _ in 0..<12 { #expect(try await session.feedcli("sync", name, "--max-pages", "2").status == 0) }
            let ids = await objects(try session.feedcli("list", name, "--jsonl")).compactMap { $0["id"] as? String }
            #expect(Set(ids) == Set((1...45).map { PagedServer.id($0, kind: kind) }), "\(kind): every item")
            #expect(ids.count == 45, "\(kind): each once")
            #expect(try await session.requireStatus(name)["resume_url"] is NSNull, "\(kind): the backlog is done")
        }
    }
}
