import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedBase
@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// The presets against their APIs' responses (`Fixtures/apis`, see its PROVENANCE), served two
/// items a page with each API's own paging: the first sync stores everything, the second is
/// silent, a third after a new item prints only it; `feeds add` without `--kind` recognises each.
@Suite("Presets: the shipped json mappings", .timeLimit(.minutes(3)))
struct PresetTests {
    enum Paging: Sendable {
        /// A cursor in the response at `field`, sent back as query parameter `parameter`.
        case cursor(field: [String], parameter: String)
        /// Discourse's `more_topics_url`, without `.json`.
        case moreTopics
        /// Page numbers in `parameter`, from `first`.
        case pages(parameter: String, first: Int)
        /// Discourse's `/posts.json`: `before=ID` answers the items whose id is lower.
        case before
    }

    struct API: Sendable, CustomTestStringConvertible {
        let kind: String
        let path: String
        let items: [String]
        /// Where an element's id is, inside the element.
        let id: [String]
        let paging: Paging
        /// The response in `Fixtures/apis/` (`KIND.json` unless named).
        var fixture: String? = nil
        var name: String { fixture ?? kind }
        var testDescription: String { name }
    }

    static let apis = [
        API(
            kind: "reddit", path: "/r/golang/new.json", items: ["data", "children"], id: ["data", "name"],
            paging: .cursor(field: ["data", "after"], parameter: "after")),
        API(
            kind: "bluesky", path: "/xrpc/app.bsky.feed.getAuthorFeed?actor=bsky.app", items: ["feed"],
            id: ["post", "uri"],
            paging: .cursor(field: ["cursor"], parameter: "cursor")),
        API(kind: "discourse", path: "/latest.json", items: ["topic_list", "topics"], id: ["id"], paging: .moreTopics),
        API(
            kind: "discourse", path: "/posts.json", items: ["latest_posts"], id: ["id"], paging: .before,
            fixture: "discourse-posts"),
        API(
            kind: "bluesky",
            path:
                "/xrpc/app.bsky.feed.getQuotes?uri=at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.post/3l6oveex3ii2l",
            items: ["posts"], id: ["uri"], paging: .cursor(field: ["cursor"], parameter: "cursor"),
            fixture: "bluesky-quotes"),
        API(
            kind: "hn", path: "/api/v1/search_by_date?tags=story", items: ["hits"], id: ["objectID"],
            paging: .pages(parameter: "page", first: 0)),
        API(
            kind: "lemmy", path: "/api/v3/post/list?community_name=lemmy&sort=New", items: ["posts"],
            id: ["post", "id"],
            paging: .cursor(field: ["next_page"], parameter: "page_cursor")),
        API(
            kind: "stackexchange", path: "/2.3/questions?site=stackoverflow&sort=creation", items: ["items"],
            id: ["question_id"],
            paging: .pages(parameter: "page", first: 1)),
    ]

    /// Serves `api`'s fixture two items a page; `publish` puts a new item (a copy of the newest
    /// with a new id) on top.
    final class Server: Sendable {
        let api: API
        let elements: Locked<[String]>  // JSON text of each element, newest first
        let server: LoopbackServer

        init(_ api: API) throws {
            self.api = api
            let document = try #require(
                try JSONSerialization.jsonObject(with: Fixtures.data("apis/\(api.name).json")) as? [String: Any])
            let elements = try #require(Self.value(document, at: api.items) as? [Any])
            let texts = Locked(
                try elements.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) })
            self.elements = texts
            let template = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
            server = try LoopbackServer { request, connection in
                guard let document = try? JSONSerialization.jsonObject(with: Data(template.utf8)) else { return }
                let all = texts.value.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
                let page = Self.page(
                    of: request.path, api.paging, ids: all.compactMap { Self.number(at: api.id, in: $0) })
                let slice = Array(all.dropFirst(page * 2).prefix(2))
                let more = (page + 1) * 2 < all.count
                var body = Self.setting(document, at: api.items, to: slice)
                switch api.paging {
                case .cursor(let field, _):
                    body = Self.setting(body, at: field, to: more ? "c\(page + 1)" : NSNull())
                case .moreTopics:
                    body = Self.setting(
                        body, at: ["topic_list", "more_topics_url"],
                        to: more ? "/latest?no_definitions=true&page=\(page + 1)" : NSNull())
                case .pages, .before:
                    break
                }
                let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
                connection.respond(200, headers: [("Content-Type", "application/json")], body: Array(data))
            }
        }

        var url: String { server.baseURL + api.path }

        func publish(id: String) {
            elements.withLock { elements in
                guard let newest = elements.first.flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) }),
                    let copy = try? JSONSerialization.data(withJSONObject: Self.setting(newest, at: api.id, to: id))
                else { return }
                elements.insert(String(decoding: copy, as: UTF8.self), at: 0)
            }
        }

        func ids() -> [String] {
            elements.value.compactMap { text in
                (try? JSONSerialization.jsonObject(with: Data(text.utf8))).flatMap { Self.value($0, at: api.id) }.map {
                    "\($0)"
                }
            }
        }

        /// The page `path` asks for; `ids`, newest first, are the items' (for `before`).
        static func page(of path: String, _ paging: Paging, ids: [Int] = []) -> Int {
            switch paging {
            case .before:
                guard let before = URLQuery.value(of: "before", in: path).flatMap({ Int($0) }) else { return 0 }
                return (ids.firstIndex { $0 < before } ?? ids.count + 1) / 2
            case .cursor(_, let parameter):
                return URLQuery.value(of: parameter, in: path).flatMap { Int($0.dropFirst()) } ?? 0
            case .moreTopics:
                return URLQuery.value(of: "page", in: path).flatMap { Int($0) } ?? 0
            case .pages(let parameter, let first):
                return (URLQuery.value(of: parameter, in: path).flatMap { Int($0) } ?? first) - first
            }
        }

        /// An item's id as a number (Discourse's are; a published copy's is its text).
        static func number(at path: [String], in item: Any) -> Int? {
            let id = value(item, at: path)
            return (id as? Int) ?? (id as? String).flatMap { Int($0) }
        }

        static func value(_ root: Any, at path: [String]) -> Any? {
            path.reduce(Optional(root)) { current, key in (current as? [String: Any])?[key] }
        }

        static func setting(_ root: Any, at path: [String], to value: Any) -> Any {
            guard let key = path.first, var object = root as? [String: Any] else { return value }
            object[key] = setting(object[key] ?? [String: Any](), at: Array(path.dropFirst()), to: value)
            return object
        }
    }

    @Test(arguments: apis)
    func aPresetSyncsCompletelyThenSilentlyThenOnlyWhatIsNew(api: API) async throws {
        let server = try Server(api)
        let session = StoreSession()
        try await session.add("p", server.url, kind: api.kind)

        let first = try await session.feedcli("sync", "p", "--jsonl")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(JSONLines.ids(first.stdout) == server.ids().reversed(), "every page, stored oldest first")
        for entry in JSONLines.objects(first.stdout) {
            #expect(entry["published"] is String, "\(api.kind): every fixture item has a time: \(entry)")
        }
        check(api.name, entries: JSONLines.objects(first.stdout), base: server.server.baseURL)

        let second = try await session.feedcli("sync", "p")
        #expect(
            second.status == 0 && second.stdout.isEmpty && second.stderr.isEmpty, "\(api.kind): nothing new, silent")

        let newID =
            api.kind == "bluesky" ? "at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.post/3new" : "999999901"
        server.publish(id: newID)
        let third = try await session.feedcli("sync", "p", "--jsonl")
        #expect(third.status == 0, "\(third.stderr)")
        #expect(JSONLines.ids(third.stdout) == [newID], "only the new item")

        let feeds = try #require(try await session.feedcli("feeds", "list", "--json").json as? [[String: Any]])
        let shown = try #require(feeds.first { $0["name"] as? String == "p" }?["expressions"] as? [String: Any])
        #expect(shown["items"] is String && shown["id"] is String, "a preset's expressions are shown, to be copied")
    }

    @Test(arguments: apis)
    func feedsAddRecognisesThePreset(api: API) async throws {
        let server = try Server(api)
        let session = StoreSession()
        let add = try await session.feedcli("feeds", "add", "p", server.url)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try await session.status("p")?["kind"] as? String == api.kind)
        #expect(add.stderr.contains("added p: \(api.kind), 2 entries on the first page"), "\(add.stderr)")
    }

    /// A preset on an answer of another shape says so in the API's terms, not jq's ("Cannot
    /// iterate over null").
    @Test(arguments: [("bluesky", "this is not a Bluesky feed"), ("discourse", "this is not a Discourse list")])
    func aPresetOnAnotherShapeSaysWhatItReads(kind: String, says: String) async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, headers: [("Content-Type", "application/json")], text: #"{"hits":[]}"#)
        }
        let session = StoreSession()
        try await session.add("p", server.baseURL + "/x.json", kind: kind)
        let sync = try await session.feedcli("sync", "p")
        #expect(sync.status == 65 && sync.stderr.contains(says), "\(sync.stderr)")
        #expect(!sync.stderr.contains("Cannot iterate"), "\(sync.stderr)")
    }

    @Test func aPresetTakesAFilterAndKeepsItsMapping() async throws {
        let server = try Server(Self.apis[0])
        let session = StoreSession()
        #expect(
            try await session.feedcli("feeds", "add", "r", server.url, "--kind", "reddit", "--filter", ".score >= 4")
                .status == 0)
        let sync = try await session.feedcli("sync", "r", "--jsonl")
        #expect(JSONLines.ids(sync.stdout) == ["t3_8acx3m", "t3_8acz9q"], "\(sync.stderr)")
    }

    /// One item of a wrong type skips that item, named, never the page; a field that cannot be
    /// made is null, never a link built of a missing part.
    @Test(
        arguments: [
            ("reddit", ["data", "title"], "{}", "skipped item 1 of", "--title gave an object, not a string"),
            ("bluesky", ["post", "author", "handle"], "null", nil, nil),
            ("lemmy", ["post", "published"], "12345", nil, nil),
            (
                "stackexchange", ["question_id"], "true", "skipped item 1 of",
                "--id gave true or false, not a string or number"
            ),
        ] as [(String, [String], String, String?, String?)])
    func oneBadItemOfAPresetPageSkipsOnlyThatItem(
        kind: String, path: [String], json: String, skipped: String?, why: String?
    ) async throws {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        let api = try #require(Self.apis.first { $0.kind == kind })
        let server = try Server(api)
        server.elements.withLock { elements in
            guard let first = elements.first.flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) }),
                let broken = try? JSONSerialization.data(withJSONObject: Server.setting(first, at: path, to: value))
            else { return }
            elements[0] = String(decoding: broken, as: UTF8.self)
        }
        let session = StoreSession()
        try await session.add("p", server.url, kind: kind)
        let sync = try await session.feedcli("sync", "p", "--jsonl", "--max-pages", "1")
        #expect(sync.status == 0, "\(sync.stderr)")
        let entries = JSONLines.objects(sync.stdout)
        if let skipped, let why {
            #expect(entries.count == 1, "the other item of the page is kept")
            #expect(sync.stderr.contains(skipped) && sync.stderr.contains(why), "\(sync.stderr)")
        } else {
            #expect(entries.count == 2 && sync.stderr.isEmpty, "\(sync.stderr)")
            let broken = entries.last
            switch kind {
            case "bluesky": #expect(broken?["url"] is NSNull, "no link of a missing handle: \(broken ?? [:])")
            default:
                #expect(broken?["published"] as? String == "1970-01-01T03:25:45Z", "Unix seconds: \(broken ?? [:])")
            }
        }
    }

    /// The field choices the contract names, on the fixtures' items.
    func check(_ kind: String, entries: [[String: Any]], base: String) {
        func entry(_ id: String) -> [String: Any]? { entries.first { $0["id"] as? String == id } }
        switch kind {
        case "reddit":
            let post = entry("t3_8ad4v0")
            #expect(
                post?["url"] as? String
                    == "https://www.reddit.com/r/golang/comments/8ad4v0/is_there_a_better_way_to_do_the_following_ty_i_am/",
                "a Reddit post's link is its permalink on reddit.com")
            #expect(
                post?["author"] as? String == "kaveman98" && post?["published"] as? String == "2018-04-06T21:10:24Z")
            #expect(post?["text"] is NSNull, "an empty selftext is no text")
        case "bluesky":
            #expect(
                entry("at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.post/3lbrkmzpxhc2a")?["url"] as? String
                    == "https://bsky.app/profile/bsky.app/post/3lbrkmzpxhc2a", "built from the at:// URI")
        case "discourse":
            #expect(entry("300104")?["url"] as? String == base + "/t/upgrading-to-3-4/300104")
        case "discourse-posts":
            let post = entry("48216")
            #expect(post?["url"] as? String == base + "/t/release-notes-2-4/3101/30", "the post's own url")
            #expect(
                post?["title"] as? String == "Release notes 2.4" && post?["author"] as? String == "maria"
                    && post?["published"] as? String == "2026-01-21T22:35:34Z", "\(post ?? [:])")
            #expect(post?["text"] as? String == "<p>Got it, thanks.</p>", "the cooked HTML")
        case "bluesky-quotes":
            #expect(
                entry("at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.post/3lbrkmzpxhc2a")?["url"] as? String
                    == "https://bsky.app/profile/bsky.app/post/3lbrkmzpxhc2a", "built from the at:// URI")
        case "hn":
            #expect(
                entry("17858001")?["url"] as? String == "https://news.ycombinator.com/item?id=17858001",
                "an Ask HN story links to its item page")
            #expect(entry("17859749")?["url"] as? String == "https://github.com/Patreon/nion")
        case "lemmy":
            #expect(
                entry("22760004")?["published"] as? String == "2024-11-17T08:00:00.5Z"
                    || (entry("22760004")?["published"] as? String)?.hasPrefix("2024-11-17T08:00:00") == true,
                "a time without a zone is UTC")
            #expect(entry("22791001")?["url"] as? String == "https://lemmy.ml/post/22791001")
        case "stackexchange":
            #expect(entry("79214001")?["published"] as? String == "2024-11-21T14:40:00Z")
            #expect(entry("79214001")?["author"] as? String == "ann")
        default:
            Issue.record("no checks for \(kind)")
        }
    }
}
