import FeedReactorTesting
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedBase
@testable import FeedHTTP
@testable import FeedJQ
@testable import FeedKinds
@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// The `json` kind and `--filter` (the contract's "Any JSON API"), end to end against loopback
/// servers: feeds defined by jq expressions sync completely, then incrementally, then silently;
/// bad expressions are usage errors, wrong types fail the feed with nothing committed.
@Suite("Any JSON API: jq mappings and filters", .timeLimit(.minutes(3)))
struct ExpressionFeedTests {
    /// A nested product API (`{"feed":{"contentItems":[{"properties":{…}}]}, "next_cursor"}`),
    /// newest first, two items a page, paged by a cursor sent as `?after=`.
    final class ProductAPI: Sendable {
        let items = Locked<[String]>([])
        let server: LoopbackServer

        init(count: Int) throws {
            let items = self.items
            items.withLock { $0 = (1...count).reversed().map(Self.item) }
            server = try LoopbackServer { request, connection in
                let all = items.value
                let start = URLQuery.value(of: "after", in: request.path).flatMap { Int($0) } ?? 0
                let page = all.dropFirst(start).prefix(2)
                let next = start + 2 < all.count ? "\"\(start + 2)\"" : "null"
                connection.respond(
                    200, text: #"{"feed":{"contentItems":[\#(page.joined(separator: ","))]},"next_cursor":\#(next)}"#)
            }
        }

        /// Item `n`: its id is a 30-digit number (beyond a double), its link relative.
        static func item(_ n: Int) -> String {
            #"{"properties":{"newsId":12345678901234567890123456789\#(n),"headline":"News \#(n)","teaser":"Text \#(n)","#
                + #""link":"/news/\#(n)","date":\#(1_700_000_000 + n),"score":\#(n * 50)}}"#
        }

        func publish(_ n: Int) { items.withLock { $0.insert(Self.item(n), at: 0) } }

        var url: String { server.baseURL + "/api/news?lang=en" }
    }

    static let mapping = [
        "--items", ".feed.contentItems[].properties", "--id", ".newsId", "--title", ".headline",
        "--text", ".teaser", "--url", ".link", "--published", ".date",
        "--cursor", ".next_cursor", "--cursor-param", "after",
    ]

    @Test func aCustomMappingSyncsCompletelyIncrementallyAndSilently() async throws {
        let api = try ProductAPI(count: 5)
        let session = StoreSession()
        let add = try await session.run(["feeds", "add", "news", api.url] + Self.mapping)
        #expect(add.status == 0, "\(add.stderr)")

        let first = try await session.feedcli("sync", "news", "--jsonl")
        #expect(first.status == 0, "\(first.stderr)")
        let entries = JSONLines.objects(first.stdout)
        #expect(
            entries.compactMap { $0["id"] as? String } == (1...5).map { "12345678901234567890123456789\($0)" },
            "every page walked, stored oldest first, ids exact")
        let newest = try #require(entries.last)
        #expect(newest["title"] as? String == "News 5")
        #expect(newest["text"] as? String == "Text 5")
        #expect(
            newest["url"] as? String == api.server.baseURL + "/news/5", "a relative url resolved against the response's"
        )
        #expect(newest["published"] as? String == "2023-11-14T22:13:25Z", "Unix seconds")
        #expect(
            first.stdout.contains(#""source":{"newsId":123456789012345678901234567895,"headline":"News 5""#),
            "source is the item as sent, its number's digits intact")
        #expect(
            api.server.requests.map(\.path) == [
                "/api/news?lang=en", "/api/news?lang=en&after=2", "/api/news?lang=en&after=4",
            ])

        let second = try await session.feedcli("sync", "news")
        #expect(second.status == 0 && second.stdout.isEmpty && second.stderr.isEmpty, "nothing new: silent")

        api.publish(6)
        api.publish(7)
        let third = try await session.feedcli("sync", "news", "--jsonl")
        #expect(JSONLines.ids(third.stdout) == ["123456789012345678901234567896", "123456789012345678901234567897"])
        #expect(try await session.status("news")?["entries"] as? Int == 7)
    }

    /// The other ways to the next page: a (relative) next URL, page numbers, a `Link` header.
    @Test(arguments: ["next-url", "page-param", "link"])
    func pagingWalksEveryPage(mode: String) async throws {
        let server = try LoopbackServer { request, connection in
            let page =
                URLQuery.value(of: "p", in: request.path).flatMap { Int($0) } ?? (request.path.contains("/2") ? 2 : 1)
            let items = page <= 3 ? #"[{"id":"\#(page)a"},{"id":"\#(page)b"}]"# : "[]"
            switch mode {
            case "next-url":
                connection.respond(
                    200, text: #"{"results":\#(items),"next":\#(page < 3 ? "\"?p=\(page + 1)\"" : "null")}"#)
            case "page-param":
                connection.respond(200, text: #"{"results":\#(items)}"#)
            default:
                let link = page < 3 ? [("Link", "</list?p=\(page + 1)>; rel=\"next\"")] : []
                connection.respond(200, headers: link, text: #"{"results":\#(items)}"#)
            }
        }
        let session = StoreSession()
        let paging = mode == "next-url" ? ["--next-url", ".next"] : mode == "page-param" ? ["--page-param", "p"] : []
        let add = try await session.run(
            ["feeds", "add", "f", server.baseURL + "/list", "--kind", "json", "--items", ".results[]"] + paging)
        #expect(add.status == 0, "\(add.stderr)")
        let sync = try await session.feedcli("sync", "f", "--jsonl")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(JSONLines.ids(sync.stdout) == ["3b", "3a", "2b", "2a", "1b", "1a"], "\(mode)")
        // Page numbers end at the first page with no items; the others where no next page is named.
        #expect(server.requests.count == (mode == "page-param" ? 4 : 3))
    }

    @Test func aFilterKeepsOutItemsOfAJSONFeedAndOfAGraphFeed() async throws {
        let api = try ProductAPI(count: 4)
        let graph = try LoopbackServer { _, connection in
            connection.respond(
                200,
                text: #"{"data":[{"id":"g2","message":"keep this"},{"id":"g1","message":"drop this"}],"paging":{}}"#)
        }
        let session = StoreSession()
        #expect(
            try await session.run(["feeds", "add", "news", api.url, "--filter", ".score >= 100"] + Self.mapping).status
                == 0)
        #expect(
            try await session.run([
                "feeds", "add", "g", graph.baseURL + "/g", "--kind", "graph", "--filter", #".message | test("keep")"#,
            ]).status == 0)
        let sync = try await session.feedcli("sync", "news", "g", "--jsonl")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(
            Set(JSONLines.ids(sync.stdout)) == [
                "123456789012345678901234567892", "123456789012345678901234567893",
                "123456789012345678901234567894", "g2",
            ])
        #expect(try await session.status("g")?["entries"] as? Int == 1, "a filtered item is not stored")

        // `feeds set` changes the filter in place; '' removes it.
        #expect(try await session.feedcli("feeds", "set", "g", "--filter", "").status == 0)
        let feeds = try #require(try await session.feedcli("feeds", "list", "--json").json as? [[String: Any]])
        #expect(feeds.first { $0["name"] as? String == "g" }?["expressions"] is NSNull)
        let mapped = try #require(feeds.first { $0["name"] as? String == "news" }?["expressions"] as? [String: Any])
        #expect(
            mapped["items"] as? String == ".feed.contentItems[].properties"
                && mapped["cursor_param"] as? String == "after"
                && mapped["filter"] as? String == ".score >= 100", "feeds list --json shows every expression")
    }

    /// A killfile set afterwards: `feeds set --filter` applies to the stored unread
    /// entries too, marking read those it drops and saying how many; read ones stay as they are,
    /// and a filter that fails on a stored entry changes nothing (65).
    @Test func aFilterSetLaterMarksTheStoredUnreadEntriesItDropsRead() async throws {
        let graph = try LoopbackServer { _, connection in
            connection.respond(
                200,
                text: #"{"data":[{"id":"4","message":"keep d"},{"id":"3","message":"spam c"},"#
                    + #"{"id":"2","message":"spam b"},{"id":"1","message":"keep a","n":1}],"paging":{}}"#)
        }
        let session = StoreSession()
        try await session.add("g", graph.baseURL + "/g", kind: "graph")
        #expect(try await session.feedcli("sync", "g").status == 0)
        #expect(try await session.feedcli("read", "2", "--feed", "g").status == 0)
        let set = try await session.feedcli("feeds", "set", "g", "--filter", #".message | test("spam") | not"#)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stderr == "feedcli: g: the filter drops 1 of 3 stored unread entries; marked read\n")
        #expect(JSONLines.ids(try await session.feedcli("list", "g", "--unread", "--jsonl").stdout) == ["1", "4"])
        #expect(try await session.status("g")?["entries"] as? Int == 4, "nothing is deleted")

        let failing = try await session.feedcli("feeds", "set", "g", "--filter", #".n | ascii_downcase"#)
        #expect(
            failing.status == 65 && failing.stderr.contains("--filter") && failing.stderr.contains("stored entry"),
            "\(failing.stderr)")
        #expect(
            (try await session.status("g")?["expressions"] as? [String: Any])?["filter"] as? String
                == #".message | test("spam") | not"#,
            "a filter that fails on a stored entry is not set")
        #expect(JSONLines.ids(try await session.feedcli("list", "g", "--unread", "--jsonl").stdout) == ["1", "4"])
    }

    /// A filter that drops everything is not silent: `status --json` counts what the
    /// last sync filtered out, and `status` marks a feed whose last sync's filter kept out every
    /// item, for paged and indexed feeds alike; items skipped for want of an id are marked too.
    @Test func statusMarksAFilterThatKeptOutEverything() async throws {
        let graph = try LoopbackServer { request, connection in
            if request.path == "/noid" {
                return connection.respond(200, text: #"{"data":[{"message":"no id"},{"id":"k"}],"paging":{}}"#)
            }
            connection.respond(
                200, text: #"{"data":[{"id":"2","message":"spam b"},{"id":"1","message":"spam a"}],"paging":{}}"#)
        }
        let posts = try PostsServer(available: 3)
        let session = StoreSession()
        #expect(
            try await session.run([
                "feeds", "add", "g", graph.baseURL + "/g", "--kind", "graph", "--filter",
                #".message | test("spam") | not"#,
            ]).status == 0)
        #expect(
            try await session.run(["feeds", "add", "p", posts.url, "--kind", "indexed", "--filter", ".id > 2"]).status
                == 0)
        try await session.add("n", graph.baseURL + "/noid", kind: "graph")
        #expect(try await session.feedcli("sync").status == 0)
        #expect(try await session.status("g")?["last_filtered"] as? Int == 2)
        #expect(try await session.status("p")?["last_filtered"] as? Int == 2, "posts 1 and 2 kept out, 3 let through")
        let lines = try await session.feedcli("status").stdout.split(separator: "\n")
        let line = { (name: String) in lines.first { $0.hasPrefix(name + " ") }.map(String.init) ?? "" }
        #expect(line("g").hasSuffix("~ the filter kept out all 2 items of the last sync"), "\(lines)")
        #expect(!line("p").contains("~"), "a filter that let something through is no news: \(line("p"))")
        #expect(line("n").hasSuffix("~ 1 item skipped: no usable id"), "\(lines)")
        #expect(try await session.feedcli("feeds", "set", "g", "--filter", "").status == 0)
        #expect(try await session.feedcli("sync", "g").status == 0)
        #expect(try await session.status("g")?["last_filtered"] as? Int == 0)
        let after = try await session.feedcli("status", "g").stdout
        #expect(!after.contains("~"), "\(after)")
    }

    @Test func badExpressionsAreUsageErrorsAndRegisterNothing() async throws {
        let session = StoreSession()
        let cases: [[String]] = [
            ["--kind", "json", "--items", ".feed["],
            ["--kind", "json", "--id", ".a | nosuchfunction"],
            ["--kind", "graph", "--items", ".data[]"],
            ["--kind", "json", "--cursor", ".next"],
            ["--kind", "graph", "--filter", "select("],
        ]
        for options in cases {
            let add = try await session.run(["feeds", "add", "x", "http://127.0.0.1:9/"] + options)
            #expect(add.status == 64, "\(options): \(add.stderr)")
            #expect(!add.stderr.isEmpty)
        }
        let compile = try await session.run([
            "feeds", "add", "x", "http://127.0.0.1:9/", "--kind", "json", "--items", ".feed[",
        ])
        #expect(
            compile.stderr.contains("--items") && compile.stderr.contains("syntax error"),
            "jq's own message: \(compile.stderr)")
        #expect(try await session.status("x") == nil, "nothing registered")

        try await session.add("g", "http://127.0.0.1:9/", kind: "graph")
        #expect(try await session.feedcli("feeds", "set", "g", "--filter", ".a").status == 0)
        #expect(try await session.feedcli("feeds", "set", "g", "--filter", ".a[").status == 64)
        let expressions = try #require(try await session.status("g")?["expressions"] as? [String: Any])
        #expect(expressions["filter"] as? String == ".a", "a failed set changes nothing")
    }

    /// An expression run on the page (the items, the next page, the filter) that fails or gives
    /// the wrong type fails the feed: nothing of the page can be trusted.
    @Test(arguments: [
        (["--items", "error(\"no\")"], "--items"),
        // Items of which none is an object: the mapping is wrong (it synced with a warning an item).
        (["--items", ".feed.contentItems[].properties.headline"], "--items on"),
        (["--cursor", "{a: 1}"], "--cursor"),
        (["--filter", "error(\"no\")"], "--filter"),
    ])
    func pageExpressionsThatFailOrGiveWrongTypesFailTheFeedWith65AndCommitNothing(options: [String], option: String)
        async throws
    {
        let api = try ProductAPI(count: 3)
        let session = StoreSession()
        #expect(try await session.run(Self.adding(api, with: options)).status == 0)
        let sync = try await session.feedcli("sync", "news")
        #expect(sync.status == 65, "\(sync.stderr)")
        #expect(sync.stdout.isEmpty)
        #expect(
            sync.stderr.contains(option) && sync.stderr.contains(api.url),
            "names the option and the page: \(sync.stderr)")
        #expect(try await session.status("news")?["entries"] as? Int == 0, "nothing of that page committed")
    }

    /// An item whose field cannot be made (an expression gives it the wrong type) is a skipped
    /// item, named with why; the page and its other items go on.
    @Test(arguments: [
        (["--id", "{a: 1}"], "--id gave an object, not a string or number"),
        (["--title", ".headline | {x: .}"], "--title gave an object, not a string"),
    ])
    func anItemWhoseFieldCannotBeMadeIsSkippedNamed(options: [String], why: String) async throws {
        let api = try ProductAPI(count: 2)
        let session = StoreSession()
        #expect(try await session.run(Self.adding(api, with: options)).status == 0)
        let sync = try await session.feedcli("sync", "news", "--max-pages", "1")
        #expect(sync.status == 0, "\(sync.stderr)")
        let lines = sync.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "feedcli: news: warning: skipped item 1 of \(api.url): \(why)",
                "feedcli: news: warning: skipped item 2 of \(api.url): \(why)",
            ], "\(sync.stderr)")
        #expect(try await session.status("news")?["last_skipped"] as? Int == 2)
    }

    /// What expressions build from a page is bounded as a response is, by `--max-size`, all
    /// items together: the item that would pass it is skipped, named
    /// (`--title '"x" * 15000000'` printed and stored 150 MB from ten items).
    @Test func whatExpressionsBuildIsBoundedByMaxSize() async throws {
        let api = try ProductAPI(count: 2)
        let session = StoreSession()
        #expect(try await session.run(Self.adding(api, with: ["--title", #""x" * 600"#])).status == 0)
        let sync = try await session.feedcli("sync", "news", "--max-pages", "1", "--max-size", "1000", "--jsonl")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(
            JSONLines.objects(sync.stdout).map { ($0["title"] as? String)?.count } == [600],
            "the first fits: \(sync.stdout.prefix(200))")
        #expect(
            sync.stderr.contains(
                "skipped item 2 of \(api.url): --title built 602 bytes, past the 1000 bytes "
                    + "a page's expressions may build (--max-size)"), "\(sync.stderr)")
    }

    /// Items of which none is an object fail the feed with one message naming the expression and
    /// what it gave; a page with some objects still skips only the others.
    @Test func itemsOfWhichNoneIsAnObjectAreAWrongMapping() async throws {
        let server = try LoopbackServer { request, connection in
            connection.respond(200, text: request.path == "/strings" ? #"["a","b","c"]"# : #"["a",{"id":"2"},7]"#)
        }
        let session = StoreSession()
        #expect(
            try await session.run(["feeds", "add", "s", server.baseURL + "/strings", "--kind", "json"]).status == 0)
        let strings = try await session.feedcli("sync", "s")
        #expect(strings.status == 65, "\(strings.stderr)")
        #expect(
            strings.stderr == "feedcli: s: bad data: --items on \(server.baseURL)/strings gave 3 strings, no object\n")
        #expect(try await session.run(["feeds", "add", "m", server.baseURL + "/mixed", "--kind", "json"]).status == 0)
        let mixed = try await session.feedcli("sync", "m", "--jsonl")
        #expect(mixed.status == 0 && JSONLines.ids(mixed.stdout) == ["2"], "\(mixed.stderr)")
        #expect(
            mixed.stderr.contains("skipped item 1 of") && mixed.stderr.contains("skipped item 3 of"), "\(mixed.stderr)")
    }

    /// One item of a wrong type among good ones skips that item only.
    @Test func oneBadItemSkipsThatItemNotThePage() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"{"posts":[{"id":1,"t":"one"},{"id":2,"t":{}},{"id":3,"t":"three"}]}"#)
        }
        let session = StoreSession()
        #expect(
            try await session.run([
                "feeds", "add", "p", server.baseURL + "/p", "--kind", "json", "--items", ".posts[]",
                "--title", ".t",
            ]).status == 0)
        let sync = try await session.feedcli("sync", "p", "--jsonl")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(JSONLines.ids(sync.stdout) == ["3", "1"])
        #expect(
            sync.stderr.contains("skipped item 2 of \(server.baseURL)/p: --title gave an object, not a string"),
            "\(sync.stderr)")
    }

    /// The feed `news` on `api` with the standard mapping, `options` replacing or adding to it.
    static func adding(_ api: ProductAPI, with options: [String]) -> [String] {
        var arguments = [
            "feeds", "add", "news", api.url, "--kind", "json", "--items", ".feed.contentItems[].properties", "--id",
            ".newsId",
        ]
        for index in stride(from: 0, to: options.count, by: 2) {
            if let existing = arguments.firstIndex(of: options[index]) {
                arguments[existing + 1] = options[index + 1]
            } else {
                arguments += [options[index], options[index + 1]]
            }
        }
        if options.contains("--cursor") { arguments += ["--cursor-param", "after"] }
        return arguments
    }

    /// jq 1.6 cannot be interrupted: a runaway expression is left behind and the run ends at its
    /// `--timeout` (the expression never ends, so a run that ends at all ended at its timeout; the
    /// suite's time limit catches a hang).
    @Test func aRunawayExpressionCannotHoldARunPastItsTimeout() async throws {
        let api = try ProductAPI(count: 1)
        let session = StoreSession()
        #expect(
            try await session.run([
                "feeds", "add", "loop", api.url, "--kind", "json", "--items", "repeat(.) | select(false)",
            ]).status == 0)
        let sync = try await session.feedcli("sync", "loop", "--timeout", "1")
        #expect(sync.status == 65, "\(sync.stderr)")
        #expect(sync.stderr.contains("--timeout"), "\(sync.stderr)")
    }

    // MARK: the parts

    /// jq holds a page whole (about 500 bytes a value for small objects), so a json feed refuses
    /// a page of more than 200,000 values before building anything, with what to do instead;
    /// a page of 1,000,000 tiny items took 830 MB before. Nothing is committed.
    @Test func aPageOfMoreValuesThanJQShouldHoldIsRefusedBeforeAnythingIsBuilt() async throws {
        let body = "[" + (1...100_000).map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]"
        #expect(JSONParser.valueCountBound(of: Data(body.utf8)) == 200_001)
        let server = try LoopbackServer { _, connection in connection.respond(200, text: body) }
        let session = StoreSession()
        try await session.add("big", server.baseURL + "/all", kind: "json")
        let run = try await session.feedcli("sync", "big")
        #expect(run.status == 65)
        #expect(
            run.stderr.contains("holds more than 200000 JSON values") && run.stderr.contains("use --kind linked"),
            "\(run.stderr)")
        #expect(try await session.status("big")?["entries"] as? Int == 0)
        let linked = try await session.feedcli("feeds", "add", "all", server.baseURL + "/all", "--kind", "linked")
        #expect(linked.status == 0)
        #expect(try await session.feedcli("sync", "all", "--quiet", "--jsonl").status == 0)
        #expect(try await session.status("all")?["entries"] as? Int == 100_000, "the linked kind reads the same page")
    }

    /// The bound counts every value a page may hold without parsing it: commas and opening
    /// brackets outside strings, plus one.
    @Test func theValueBoundCountsCommasAndBracketsOutsideStrings() {
        #expect(JSONParser.valueCountBound(of: Data(#"{"a":[1,2],"b":"x,{[\"]"}"#.utf8)) == 5)
        #expect(JSONParser.valueCountBound(of: Data("7".utf8)) == 1)
        #expect(
            JSONParser.valueCountBound(of: Data("[[],{}]".utf8)) == 5, "an empty container counts one too many: a bound"
        )
    }

    @Test func publishedTimesInEveryFormTheContractNames() {
        #expect(FeedTime.normalize(.string("2026-11-01T10:00:00+01:00")) == "2026-11-01T09:00:00Z")
        #expect(FeedTime.normalize(.string("Tue, 10 Jun 2003 04:00:00 +0200")) == "2003-06-10T02:00:00Z")
        #expect(FeedTime.normalize(.string("10 Jun 2003 04:00 GMT")) == "2003-06-10T04:00:00Z")
        #expect(FeedTime.normalize(.number("1700000000")) == "2023-11-14T22:13:20Z")
        #expect(
            FeedTime.normalize(.number("1700000000500")) == "2023-11-14T22:13:20.5Z"
                || FeedTime.normalize(.number("1700000000500"))?.hasPrefix("2023-11-14T22:13:20") == true,
            "milliseconds")
        #expect(FeedTime.normalize(.number("1e300")) == nil)
        #expect(FeedTime.normalize(.string("yesterday")) == nil)
        #expect(FeedTime.normalize(.object(JSONObject())) == nil)
    }

    @Test func queryParametersAreSetAndRead() {
        #expect(
            URLQuery.setting("after", to: "t3_a b&c", in: "https://r.example/r/swift/new.json?limit=100")
                == "https://r.example/r/swift/new.json?limit=100&after=t3_a%20b%26c")
        #expect(
            URLQuery.setting("page", to: "3", in: "https://x.example/q?page=2&x=1#top")
                == "https://x.example/q?x=1&page=3#top")
        #expect(URLQuery.value(of: "page", in: "https://x.example/q?x=1&page=7") == "7")
        #expect(URLQuery.value(of: "cursor", in: "https://x.example/q?cursor=a%2Fb") == "a/b")
        #expect(URLQuery.value(of: "page", in: "https://x.example/q") == nil)
    }

    @Test func expressionsAreStoredAsOneObjectAndReadBack() throws {
        var expressions = FeedExpressions()
        expressions.items = ".data.children[].data"
        expressions.cursor = ".data.after"
        expressions.cursorParam = "after"
        expressions.firstPage = 0
        expressions.filter = #".title | test("\"swift\"")"#
        let stored = try #require(expressions.json)
        #expect(FeedExpressions(json: stored) == expressions)
        #expect(FeedExpressions().json == nil)
        #expect(expressions.pagingProblem == "--first-page goes with --page-param")
        expressions.firstPage = nil
        #expect(expressions.pagingProblem == nil && expressions.paging == .cursor(".data.after", parameter: "after"))
        expressions.pageParam = "page"
        #expect(expressions.pagingProblem != nil, "two ways to the next page")
    }

    /// Values are read at the paths an expression names, from feedcli's own parse (exact numbers);
    /// an expression that names no path is read from jq's output.
    @Test func pathsAreReadExactlyAndOtherExpressionsFromJQ() throws {
        var expressions = FeedExpressions()
        expressions.items = ".list[]"
        expressions.id = #""\(.kind)-\(.n)""#
        expressions.title = ".n"
        let feed = ExpressionFeed(
            feedURL: "https://x.example/", expressions: expressions, limits: JQ.Limits(timeout: .seconds(10)))
        let body = #"{"list":[{"kind":"a","n":100000000000000000001},{"kind":"b","n":2}]}"#
        let page = try feed.page(
            from: HTTPResponse(status: 200, body: Data(body.utf8), effectiveURL: "https://x.example/"))
        #expect(page.items.map(\.id) == ["a-1e+20", "b-2"], "jq's own (rounded) output for a string it builds")
        #expect(page.items.map(\.title) == ["100000000000000000001", "2"], "a path: the number as sent")
        #expect(page.next == nil)
    }
}
