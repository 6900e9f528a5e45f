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

/// The built binary against a loopback jsonplaceholder, field by field against the contract.
@Suite("feedcli next/list/show/status end to end", .serialized, .timeLimit(.minutes(3)))
struct EndToEndTests {
    let posts: PostsServer
    let session = StoreSession()
    var state: String { session.state }

    init() async throws {
        posts = try PostsServer(available: 100)
        let added = try await Feedcli.run(["feeds", "add", "local", posts.url, "--kind", "indexed", "--state", state])
        #expect(added.status == 0, "\(added.stderr)")
    }

    @Test func nextThreeTimesGivesPostsOneTwoThree() async throws {
        let realPosts =
            try JSONSerialization.jsonObject(with: Fixtures.data("posts/posts.json")) as? [[String: Any]] ?? []
        let first = try await session.feedcli("next", "local")
        #expect(first.status == 0)
        #expect(
            first.stdout.hasPrefix(
                "[@1 local] sunt aut facere repellat provident occaecati excepturi optio reprehenderit\nby 1\n\nquia et suscipit\n"
            ))
        #expect(first.stderr.isEmpty)
        for n in 2...3 {
            let run = try await session.feedcli("next", "local", "--json")
            #expect(run.status == 0)
            #expect(run.stdout.hasSuffix("}\n") && run.stdout.filter { $0 == "\n" }.count == 1)
            let entry = try #require(run.json as? [String: Any])
            let post = realPosts[n - 1]
            #expect(
                Array(entry.keys).sorted() == [
                    "author", "feed", "fetched_at", "id", "published", "read", "source", "text", "title", "url",
                ])
            #expect(entry["feed"] as? String == "local")
            #expect(entry["id"] as? String == "\(n)")
            #expect(entry["title"] as? String == post["title"] as? String)
            #expect(entry["text"] as? String == post["body"] as? String)
            #expect(entry["author"] as? String == "1")
            #expect(entry["url"] is NSNull)
            #expect(entry["published"] is NSNull)
            #expect(entry["read"] as? Bool == true)
            let fetchedAt = try #require(entry["fetched_at"] as? String)
            #expect(Timestamp.parse(fetchedAt) != nil && fetchedAt.hasSuffix("Z"))
            let source = try #require(entry["source"] as? [String: Any])
            #expect(NSDictionary(dictionary: source).isEqual(to: post), "source is the item as the server sent it")
        }
        let listed = try await session.feedcli("list", "local", "--jsonl")
        #expect(listed.stdout.split(separator: "\n").count == 3, "state survives between runs")
    }

    @Test func theEndOfTheFeedExits1Silently() async throws {
        posts.setAvailable(1)
        #expect(try await session.feedcli("next", "local").status == 0)
        let end = try await session.feedcli("next", "local")
        #expect(end.status == 1)
        #expect(end.stdout.isEmpty && end.stderr.isEmpty, "nothing new prints nothing at all")
        posts.setAvailable(2)
        #expect(
            try await session.feedcli("next", "local", "--json").json.flatMap {
                ($0 as? [String: Any])?["id"] as? String
            } == "2",
            "a post published later is found next time")
    }

    @Test func listInAllThreeFormats() async throws {
        for _ in 0..<3 { _ = try await session.feedcli("next", "local") }
        let plain = try await session.feedcli("list", "local")
        #expect(
            plain.stdout == """
                  @1 local: sunt aut facere repellat provident occaecati excepturi optio reprehenderit
                  @2 local: qui est esse
                  @3 local: ea molestias quasi exercitationem repellat qui ipsa sit aut

                """)
        let json = try await session.feedcli("list", "local", "--json")
        let array = try #require(json.json as? [[String: Any]])
        #expect(array.compactMap { $0["id"] as? String } == ["1", "2", "3"])
        let jsonl = try await session.feedcli("list", "--jsonl", "local")
        let lines = jsonl.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines.last == "", "one object per line, a newline after each")
        #expect(
            lines.dropLast().allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] })
        #expect(
            try await session.feedcli("list", "local", "--limit", "1", "--json").json.flatMap {
                ($0 as? [[String: Any]])?.first?["id"] as? String
            } == "3")
        #expect(try await session.feedcli("list", "local", "--unread", "--json").stdout == "[]\n")
        let shown = try await session.feedcli("show", "2", "--feed", "local", "--json")
        #expect((shown.json as? [String: Any])?["title"] as? String == "qui est esse")
        #expect(try await session.feedcli("show", "99", "--feed", "local").status == 66)
    }

    @Test func aServerErrorLeavesTheCursorUnchanged() async throws {
        posts.failNext(500)
        let failed = try await session.feedcli("next", "local")
        #expect(failed.status == 75)
        #expect(failed.stdout.isEmpty)
        #expect(failed.stderr.contains("HTTP 500"))
        let status = try #require(try await session.feedcli("status", "local", "--json").json as? [[String: Any]])
        #expect(status.first?["next_index"] as? Int == 1)
        #expect(status.first?["last_error_code"] as? Int == 75)
        let retried = try await session.feedcli("next", "local", "--json")
        #expect((retried.json as? [String: Any])?["id"] as? String == "1")
    }

    @Test func exitCodesForUsageAndMissingThings() async throws {
        #expect(try await session.feedcli("next", "nosuch").status == 66)
        #expect(try await session.feedcli("next", "--bogus").status == 64)
        #expect(try await session.feedcli("list", "--json", "--jsonl").status == 64)
        #expect(try await session.feedcli("feeds", "add", "local", posts.url, "--kind", "indexed").status == 64)
        #expect(try await session.feedcli("feeds", "add", "x", posts.url, "--kind", "nonsense").status == 64)
        #expect(try await session.feedcli("feeds", "add", "x", "ftp://127.0.0.1/", "--kind", "indexed").status == 78)
        posts.failNext(403)
        #expect(try await session.feedcli("next", "local").status == 77)
        posts.failNext(410)
        #expect(try await session.feedcli("next", "local").status == 69)
    }

    @Test func tenConcurrentNextDeliverOneToTenOnceEach() async throws {
        let runs = try await (0..<10).map { _ in
            try Feedcli.start(["next", "local", "--json", "--state", state])
        }.asyncMap { await $0.finish() }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        let ids = runs.compactMap { ($0.json as? [String: Any])?["id"] as? String }.compactMap(Int.init).sorted()
        #expect(ids == Array(1...10))
    }

    @Test func aRunWaitsForAnotherOnTheSameFeedThenExits75() async throws {
        let store = try FeedStore.open(at: state)
        let lock = try store.lock(feed: "local")
        // How long it waits is `StoreTests.aFeedLockIsExclusiveAndWaitsUpToItsLimit`' (on a
        // virtual clock); here, that the process gives up with 75 and says why.
        let blocked = try await session.feedcli("next", "local", "--wait", "0.3")
        #expect(blocked.status == 75)
        #expect(blocked.stderr.contains("feed local is busy in another feedcli run"), "\(blocked.stderr)")
        withExtendedLifetime(lock) {}
    }

    @Test func plainOutputEscapesControlCharacters() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200,
                text:
                    #"{"userId":1,"id":1,"title":"evil \u001b]0;owned\u0007 title","body":"line\u001b[2Jcleared\u009b"}"#
            )
        }
        _ = try await session.feedcli("feeds", "add", "evil", server.baseURL + "/posts", "--kind", "indexed")
        let run = try await session.feedcli("next", "evil")
        #expect(!run.stdout.contains("\u{1B}") && !run.stdout.contains("\u{07}") && !run.stdout.contains("\u{9B}"))
        #expect(run.stdout.contains(#"evil \x1B]0;owned\x07 title"#))
        #expect(run.stdout.contains(#"line\x1B[2Jcleared\u009B"#))
        let json = try await session.feedcli("show", "1", "--feed", "evil", "--json")
        #expect(
            (json.json as? [String: Any])?["title"] as? String == "evil \u{1B}]0;owned\u{07} title",
            "JSON keeps the data")
    }

    @Test func aFileThatIsNotAStoreIsLeftUntouched() async throws {
        let path = temporaryStorePath()
        let text = Data("precious\n".utf8)
        try writeFile(path, text)
        let run = try await Feedcli.run(["list", "--state", path])
        #expect(run.status == 74)
        #expect(FileManager.default.contents(atPath: path) == text)
    }

    @Test func theStatePathComesFromTheEnvironment() async throws {
        let path = temporaryStorePath()
        #expect(try await Feedcli.run(["read", "--all"], environment: ["FEEDCLI_STATE": path]).status == 0)
        let run = try await Feedcli.run(["feeds", "list", "--json"], environment: ["FEEDCLI_STATE": path])
        #expect(run.status == 0)
        #expect((run.json as? [[String: Any]])?.first?["name"] as? String == "posts", "the default feed exists")
        #expect(FileManager.default.fileExists(atPath: path))
        let xdg = temporaryStorePath()
        let folder = (xdg as NSString).deletingLastPathComponent
        #expect(try await Feedcli.run(["read", "--all"], environment: ["XDG_STATE_HOME": folder]).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder + "/feedcli/feedcli.sqlite"))
    }
}
