import FeedReactorTesting
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// What `feeds add` finds out, and what a feed added under the wrong kind says.
@Suite("feeds add: what detection finds and whom it blames", .timeLimit(.minutes(2)))
struct DetectionTests {
    /// Before, every one of these was 65 ("bad data"): the data was never the problem.
    @Test(arguments: [(401, Int32(77)), (403, 77), (429, 75), (503, 75), (400, 69)])
    func anHTTPFailureIsThatFailuresCode(status: Int, code: Int32) async throws {
        let server = try LoopbackServer { _, connection in connection.respond(status, text: "{}") }
        let session = StoreSession()
        let run = try await session.feedcli("feeds", "add", "f", server.baseURL + "/feed")
        #expect(run.status == code, "\(run.stderr)")
        #expect(run.stderr.contains("answered HTTP \(status)") && run.stderr.contains("give --kind"), "\(run.stderr)")
        #expect(
            try await session.feedcli("feeds", "list", "--json").stdout.contains("\"f\"") == false, "nothing registered"
        )
    }

    /// A mistyped URL (404, or 410, there and at `URL/1`) is "not found", 69 as the contract
    /// has an HTTP failure; it was 65, "bad data: cannot tell what kind of feed".
    @Test(arguments: [("/feed", 404), ("/feed", 410), ("/feed?q=1", 404)])
    func aURLThatIsNotThereIsNotFound(path: String, status: Int) async throws {
        let server = try LoopbackServer { _, connection in connection.respond(status, text: "{}") }
        let session = StoreSession()
        let run = try await session.feedcli("feeds", "add", "f", server.baseURL + path)
        #expect(run.status == 69, "\(run.stderr)")
        let what = status == 404 ? "not found" : "gone"
        #expect(
            run.stderr == "feedcli: the server refused with HTTP \(status): \(server.baseURL)\(path) "
                + "(\(what): check the URL, or give --kind)\n", "\(run.stderr)")
        #expect(try await session.feedcli("feeds", "list", "--json").stdout.contains("\"f\"") == false)
    }

    /// A URL without its scheme is refused with the one that would do: `http` for this machine,
    /// `https` elsewhere.
    @Test func aURLWithoutItsSchemeIsRefusedWithTheURLMeant() async throws {
        let session = StoreSession()
        let local = try await session.feedcli("feeds", "add", "x", "127.0.0.1:8089/apis/feed.json")
        #expect(local.status == 78)
        #expect(
            local.stderr == "feedcli: configuration error: not an http or https URL: 127.0.0.1:8089/apis/feed.json "
                + "(did you mean http://127.0.0.1:8089/apis/feed.json?)\n", "\(local.stderr)")
        let remote = try await session.feedcli("feeds", "add", "y", "example.com/feed.json")
        #expect(remote.stderr.contains("(did you mean https://example.com/feed.json?)"), "\(remote.stderr)")
        let nonsense = try await session.feedcli("feeds", "add", "z", "not a url")
        #expect(!nonsense.stderr.contains("did you mean"), "\(nonsense.stderr)")
    }

    /// The same URL under a second name is said (it was accepted without a word), and so is a
    /// plain `sse` feed on Mastodon's streaming path, which stores notifications as entries.
    @Test func aSecondNameForAFeedAndAPlainStreamOnMastodonAreSaid() async throws {
        let session = StoreSession()
        let url = "http://127.0.0.1:9/feed.json"
        #expect(try await session.feedcli("feeds", "add", "a", url, "--kind", "linked").stderr.isEmpty)
        let again = try await session.feedcli("feeds", "add", "b", url, "--kind", "linked")
        #expect(again.status == 0)
        #expect(
            again.stderr == "feedcli: b: warning: \(url) is feed a already: both fetch it and deliver its entries; "
                + "feedcli feeds rm b undoes this, feeds add a URL --replace changes that one\n", "\(again.stderr)")
        let other = try await session.feedcli("feeds", "add", "c", url, "--kind", "linked", "--filter", ".id > 1")
        #expect(other.stderr.isEmpty, "another filter is another feed: \(other.stderr)")
        let stream = try await session.feedcli(
            "feeds", "add", "m", "http://127.0.0.1:9/api/v1/streaming/public", "--kind", "sse")
        #expect(stream.stderr.contains("this is Mastodon's streaming API"), "\(stream.stderr)")
        #expect(stream.stderr.contains("--kind mastodon"), "\(stream.stderr)")
    }

    /// `URL/1` is asked only of a URL without a query string (the probe asked
    /// `…getQuotes?uri=at://…/1`): one request, then 65 saying what was seen.
    @Test func aURLWithAQueryStringIsNotProbedAsIndexed() async throws {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: #"{"odd":true}"#) }
        let session = StoreSession()
        let run = try await session.feedcli("feeds", "add", "q", server.baseURL + "/xrpc/getQuotes?uri=at://did/post")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(
            run.stderr.contains("cannot tell what kind of feed") && run.stderr.contains("give --kind"), "\(run.stderr)")
        #expect(server.requests.map(\.path) == ["/xrpc/getQuotes?uri=at://did/post"], "no /1 probe")
    }

    /// An array whose items have no `id` is not a linked feed (Lobsters'
    /// `newest.json` was "linked, 25 entries", then every sync skipped all 25): 65, naming
    /// fields that could serve, and nothing registered. Items of the shape Lobsters sends.
    @Test func itemsWithoutIdsAreNotALinkedFeed() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200,
                text:
                    #"[{"short_id":"abc123","short_id_url":"https://lobste.rs/s/abc123","created_at":"2026-11-25T10:00:00.000-06:00","title":"A story","url":"https://example.com/a","score":3},{"short_id":"def456","title":"Another"}]"#
            )
        }
        let session = StoreSession()
        let run = try await session.feedcli("feeds", "add", "lobsters", server.baseURL + "/newest.json")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(
            run.stderr.contains("2 items without an `id`") && run.stderr.contains("--kind json --id .short_id"),
            "\(run.stderr)")
        #expect(
            !(try await session.feedcli("feeds", "list", "--json").stdout.contains("lobsters")), "nothing registered")
        #expect(
            try await session.feedcli(
                "feeds", "add", "lobsters", server.baseURL + "/newest.json", "--kind", "json", "--id", ".short_id"
            ).status == 0,
            "the way it names works")
    }

    /// RSS and Atom are named as such, after the one request that tells (they
    /// were "bad data … give --kind", with an extra request to URL/1).
    @Test(arguments: [
        #"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>"#,
        #"<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>"#,
    ])
    func rssAndAtomAreNamedAfterOneRequest(document: String) async throws {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: document) }
        let session = StoreSession()
        let run = try await session.feedcli("feeds", "add", "x", server.baseURL + "/feed.xml")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("RSS/Atom: feedcli reads JSON feeds"), "\(run.stderr)")
        #expect(server.requests.count == 1, "no URL/1")
    }

    /// An HTML page that names its JSON Feed is followed to it, and `feeds add` says so; the
    /// feed is registered under the JSON Feed's own URL.
    @Test func aPageThatNamesItsJSONFeedIsFollowed() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path == "/feed.json" {
                connection.respond(
                    200, text: #"{"version":"https://jsonfeed.org/version/1.1","title":"Blog","items":[{"id":"1"}]}"#)
            } else {
                connection.respond(
                    200,
                    text:
                        #"<!DOCTYPE html><html><head><link rel="stylesheet" href="/s.css"><link type="application/feed+json" rel="alternate" title="Blog" href="/feed.json"></head><body>hi</body></html>"#
                )
            }
        }
        let session = StoreSession()
        let run = try await session.feedcli("feeds", "add", "blog", server.baseURL + "/")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains("jsonfeed 'Blog'")
                && run.stderr.contains("the JSON Feed \(server.baseURL)/feed.json that the page names"),
            "\(run.stderr)")
        let feeds = try await session.feedcli("feeds", "list", "--json").json as? [[String: Any]] ?? []
        #expect(feeds.first { $0["name"] as? String == "blog" }?["url"] as? String == server.baseURL + "/feed.json")
    }

    @Test func aBaseURLThatAnswers404StillTriesTheFirstPost() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path == "/posts/1" {
                connection.respond(200, text: #"{"id":1,"title":"first post"}"#)
            } else {
                connection.respond(404, text: "{}")
            }
        }
        let session = StoreSession()
        let run = try await session.feedcli("feeds", "add", "p", server.baseURL + "/posts")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr
                == "feedcli: added p: indexed, one post per URL (\(server.baseURL)/posts/1, post 1 'first post')\n")
    }

    @Test func addingSaysWhatWasFound() async throws {
        let server = try LoopbackServer { request, connection in
            switch request.path {
            case "/feed.json":
                connection.respond(
                    200,
                    text:
                        #"{"version":"https://jsonfeed.org/version/1.1","title":"Daring Fireball","items":[{"id":"1"},{"id":"2"}]}"#
                )
            default:
                connection.respond(200, text: #"{"data":[{"id":"1"}],"paging":{}}"#)
            }
        }
        let session = StoreSession()
        let added = try await session.feedcli("feeds", "add", "fireball", server.baseURL + "/feed.json")
        #expect(added.status == 0 && added.stdout.isEmpty)
        #expect(added.stderr == "feedcli: added fireball: jsonfeed 'Daring Fireball', 2 entries on the first page\n")
        let graph = try await session.feedcli("feeds", "add", "g", server.baseURL + "/g", "--replace")
        #expect(graph.stderr == "feedcli: replaced g: graph, 1 entry on the first page\n")
        let quiet = try await session.feedcli("feeds", "add", "k", server.baseURL + "/other", "--kind", "graph")
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "with --kind nothing is asked, and nothing said")
    }

    /// `--kind indexed` on a Graph feed: `URL/1` is 404, and the feed would sync "nothing new"
    /// forever, in silence.
    @Test func anIndexedFeedWhoseFirstPostIsMissingSaysSo() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path == "/graph" {
                connection.respond(200, text: #"{"data":[{"id":"1"}],"paging":{}}"#)
            } else {
                connection.respond(404, text: "{}")
            }
        }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/graph", kind: "indexed")
        for command in [["sync", "g"], ["next", "g"]] {
            let run = try await session.run(command)
            #expect(run.status == (command[0] == "sync" ? 0 : 1), "\(run.stderr)")
            #expect(
                run.stderr.contains(
                    "feedcli: g: warning: \(server.baseURL)/graph/1 answered HTTP 404 and g has never delivered an entry"
                ),
                "\(command): \(run.stderr)")
            #expect(run.stderr.contains("add it again without --kind"))
        }
        let posts = try PostsServer(available: 0)
        try await session.add("empty", posts.url, kind: "indexed")
        #expect(
            try await session.feedcli("sync", "empty").stderr.contains("never delivered"),
            "an empty feed hears it too, and may ignore it")
    }
}
