import FeedReactorTesting
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `next` across feeds: `next --all FEED…` reads only the named
/// feeds, a bare `next` reads across feeds once there is more than `posts`, both by publication
/// (oldest first), and `--every never` keeps a feed out of every plain sync and of `next --all`'s.
@Suite("next across feeds, by publication", .timeLimit(.minutes(2)))
struct NextAcrossFeedsTests {
    /// Feed `a`'s item is published after feed `b`'s, but `a` is synced first.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request, connection in
            switch request.path {
            case "/a": connection.respond(200, text: #"[{"id":"a1","title":"A","created_at":"2026-11-05T00:00:00Z"}]"#)
            case "/b": connection.respond(200, text: #"[{"id":"b1","title":"B","created_at":"2026-11-01T00:00:00Z"}]"#)
            default: connection.respond(200, text: #"[{"id":"c1","title":"C"}]"#)
            }
        }
    }

    private func session(_ server: LoopbackServer, feeds: [String]) async throws -> StoreSession {
        let session = StoreSession()
        #expect(try await session.feedcli("feeds", "remove", "posts").status == 0)
        for feed in feeds { try await session.add(feed, server.baseURL + "/" + feed, kind: "linked") }
        return session
    }

    private func nextID(_ session: StoreSession, _ arguments: String...) async throws -> String? {
        let run = try await session.run(["next"] + arguments + ["--json"])
        return (run.json as? [String: Any])?["id"] as? String
    }

    @Test func nextAllWithNamesReadsOnlyThoseFeeds() async throws {
        let server = try Self.server()
        let session = try await session(server, feeds: ["a", "b"])
        #expect(try await session.feedcli("sync", "a", "b").status == 0)
        #expect(try await nextID(session, "--all", "a") == "a1", "b's entry is older, but b was not named")
        #expect(try await session.feedcli("next", "--all", "a").status == 1, "nothing unread in a, and nothing new")
        #expect(try await session.feedcli("next", "--all", "nope").status == 66)
        #expect(try await session.feedcli("next", "a", "b").status == 64, "two feeds without --all")
    }

    @Test func aBareNextReadsAcrossFeedsByPublication() async throws {
        let server = try Self.server()
        let session = try await session(server, feeds: ["a", "b"])
        // Nothing unread: the feeds are synced quietly, then the oldest by publication comes.
        #expect(try await nextID(session) == "b1")
        #expect(try await nextID(session) == "a1")
        #expect(try await session.feedcli("next").status == 1)
    }

    @Test func aBareNextReadsPostsWhileItIsTheOnlyFeed() async throws {
        let posts = try PostsServer(available: 2)
        let session = StoreSession()
        #expect(
            try await session.feedcli("feeds", "add", "posts", posts.url, "--kind", "indexed", "--replace").status == 0)
        #expect(try await nextID(session) == "1")
        #expect(try await nextID(session) == "2")
    }

    @Test func everyNeverKeepsAFeedOutOfPlainSyncsAndNextAll() async throws {
        let server = try Self.server()
        let session = try await session(server, feeds: ["a", "c"])
        #expect(try await session.feedcli("feeds", "set", "c", "--every", "never").status == 0)
        #expect(try await session.feedcli("sync").stdout.contains("A"))
        #expect(!server.requests.contains { $0.path == "/c" }, "a plain sync leaves c alone")
        #expect(try await session.feedcli("feeds", "list").stdout.contains("every never"))
        let line = try await session.feedcli("status", "c").stdout.split(separator: "\n").last
        #expect(
            line?.hasPrefix("c ") == true && line?.hasSuffix("  never") == true, "status: next `never`: \(line ?? "")")
        #expect(try await session.status("c")?["every_seconds"] as? Int == 0)
        #expect(try await nextID(session, "--all") == "a1")
        #expect(try await session.feedcli("next", "--all").status == 1)
        #expect(!server.requests.contains { $0.path == "/c" }, "next --all's sync leaves it alone too")
        #expect(try await nextID(session, "c") == "c1", "naming it fetches it")
        #expect(try await session.feedcli("feeds", "set", "c", "--every", "").status == 0, "'' unsets it")
        #expect(try await session.status("c")?["every_seconds"] is NSNull)
        #expect(
            try await session.feedcli(
                "feeds", "add", "d", server.baseURL + "/d", "--kind", "linked", "--every", "never"
            ).status == 0)
        #expect(try await session.status("d")?["every_seconds"] as? Int == 0)
    }
}
