import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// A mistyped feed name gets the nearest names, and an id that several feeds
/// hold names no entry by itself (item 13: `read 2` marked entry 2 of every feed).
@Suite("Names: near misses and ids in several feeds", .timeLimit(.minutes(2)))
struct NamingTests {
    @Test func theNearestNamesComeFirstAndFarOnesNever() {
        let feeds = ["fireball", "firebell", "hn", "reddit-swift"]
        #expect(NearestNames.of("fireblal", among: feeds) == ["fireball", "firebell"], "two edits each")
        #expect(NearestNames.of("firebal", among: feeds) == ["fireball", "firebell"])
        #expect(NearestNames.of("fireballs", among: feeds) == ["fireball", "firebell"])
        #expect(NearestNames.of("hn", among: feeds).isEmpty, "itself is no suggestion")
        #expect(NearestNames.of("firebll", among: feeds) == ["fireball", "firebell"], "ties by name")
        #expect(NearestNames.of("zzz", among: feeds).isEmpty)
        #expect(NearestNames.hint(for: "firebxll", among: feeds) == "; did you mean `fireball` or `firebell`?")
        #expect(NearestNames.hint(for: "qqqqqqqq", among: feeds).isEmpty)
    }

    @Test func aMistypedFeedNameSuggestsTheNearest() async throws {
        let session = StoreSession()
        try await session.add("fireball", "http://127.0.0.1:9/f", kind: "indexed")
        for command in [["next", "fireblal"], ["list", "fireblal"], ["status", "fireblal"], ["sync", "fireblal"]] {
            let run = try await session.run(command)
            #expect(run.status == 66)
            #expect(
                run.stderr.contains("no feed named fireblal; did you mean `fireball`?"), "\(command): \(run.stderr)")
        }
    }

    @Test func anIdInSeveralFeedsIsRefusedUntilAFeedIsNamed() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"[{"id":"2","html_url":"https://e.com/2"}]"#)
        }
        let session = StoreSession()
        try await session.add("a", server.baseURL + "/a", kind: "linked")
        try await session.add("b", server.baseURL + "/b", kind: "linked")
        #expect(try await session.feedcli("sync", "a", "b").status == 0)
        for command in [["read", "2"], ["unread", "2"], ["open", "2"]] {
            let run = try await session.run(command)
            #expect(run.status == 64, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("entry 2 is in 2 feeds (a, b); name one with --feed"), "\(run.stderr)")
        }
        let (a, b) = await (try session.status("a"), try session.status("b"))
        #expect(a?["unread"] as? Int == 1 && b?["unread"] as? Int == 1, "nothing marked")
        #expect(try await session.feedcli("read", "2", "--feed", "b").status == 0)
        let (after, marked) = await (try session.status("a"), try session.status("b"))
        #expect(after?["unread"] as? Int == 1 && marked?["unread"] as? Int == 0)
    }
}

/// Messages say a thing once, and say what is wrong.
@Suite("Messages")
struct MessageTests {
    /// On PostgreSQL the name is looked up under the feed's advisory lock, not before it.
    @Test(arguments: [["sync", "firebal"], ["next", "firebal"]], [false, true])
    func anUnknownFeedIsNamedOnce(arguments: [String], onPostgres: Bool) async throws {
        let session = await onPostgres ? try StoreSession.onPostgres() : StoreSession()
        try await session.add("fireball", "http://127.0.0.1:9/f", kind: "indexed")
        let run = try await session.feedcli(arguments[0], arguments[1])
        #expect(run.status == 66)
        #expect(run.stderr == "feedcli: no feed named firebal; did you mean `fireball`?\n", "\(run.stderr)")
    }

    @Test(arguments: [["list"], ["export", "--format", "atom"]])
    func aNegativeLimitIsRefusedByName(arguments: [String]) async throws {
        let run = try await StoreSession().run(arguments + ["--limit", "-3"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--limit must not be negative"), "\(run.stderr)")
    }

    /// A 400 shows the server's own words (Bluesky's "Profile not found"), in a sync and in
    /// detection; an HTML error page shows nothing of itself.
    @Test func aRefusalSaysWhatTheServerSaid() async throws {
        let server = try LoopbackServer { request, connection in
            switch request.path {
            case "/html": connection.respond(400, text: "<html><body><h1>Bad Request</h1></body></html>")
            default:
                connection.respond(
                    400, headers: [("Content-Type", "application/json")],
                    text: #"{"error":"InvalidRequest","message":"Profile not found"}"#)
            }
        }
        let session = StoreSession()
        try await session.add("b", server.baseURL + "/xrpc", kind: "bluesky")
        let sync = try await session.feedcli("sync", "b", "--retries", "0")
        #expect(sync.status == 69 && sync.stderr.contains("(the server says: Profile not found)"), "\(sync.stderr)")
        let detected = try await session.feedcli("feeds", "add", "x", server.baseURL + "/xrpc")
        #expect(
            detected.status == 69 && detected.stderr.contains("the server says: Profile not found"),
            "\(detected.stderr)")
        try await session.add("h", server.baseURL + "/html", kind: "graph")
        let html = try await session.feedcli("sync", "h", "--retries", "0")
        #expect(html.status == 69 && !html.stderr.contains("server says"), "\(html.stderr)")
    }

    /// A preset given the wrong URL of its API says what the preset reads, and where that is
    /// documented (a Discourse topic's own `/t/ID.json` instead of `/latest.json` or `/posts.json`).
    @Test func aPresetOnTheWrongURLSaysWhatItReads() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200, headers: [("Content-Type", "application/json")], text: #"{"post_stream":{"posts":[{"id":1}]}}"#)
        }
        let session = StoreSession()
        try await session.add("d", server.baseURL + "/t/2144.json", kind: "discourse")
        let sync = try await session.feedcli("sync", "d")
        #expect(sync.status == 65, "\(sync.stderr)")
        #expect(
            sync.stderr.contains("--kind discourse reads a Discourse topic or post list (https://docs.discourse.org/"),
            "\(sync.stderr)")
    }

    /// One error style: the parser's usage errors read as feedcli's own,
    /// `feedcli: <command>: <why>`, with the usage line after them; help stays as it is.
    @Test func usageErrorsSpeakInFeedclisOneStyle() async throws {
        let session = StoreSession()
        let unknown = try await session.run(["list", "--bogus"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.hasPrefix("feedcli: list: unknown option '--bogus'\nUsage: feedcli list "),
            "\(unknown.stderr)")
        let missing = try await Feedcli.run(["feeds", "add"])
        #expect(
            missing.status == 64 && missing.stderr.hasPrefix("feedcli: feeds add: missing expected argument '<name>'"),
            "\(missing.stderr)")
        #expect(!(try await Feedcli.run(["sync", "--timeout", "0"]).stderr.contains("Error:")))
        let help = try await Feedcli.run(["list", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: "))
    }

    @Test func aZeroTimeoutSaysWhatIsAllowed() async throws {
        let run = try await StoreSession().feedcli("sync", "--timeout", "0")
        #expect(run.status == 64)
        #expect(run.stderr.contains("--timeout must be more than 0 and at most 86400 seconds"), "\(run.stderr)")
    }
}
