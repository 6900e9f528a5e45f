@testable import FeedCore
import Foundation
import Testing

private func response(_ body: String, url: String = "http://127.0.0.1/feed", headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
    HTTPResponse(status: 200, headers: headers, body: Data(body.utf8), effectiveURL: url)
}

private func response(_ data: Data, url: String = "http://127.0.0.1/feed") -> HTTPResponse {
    HTTPResponse(status: 200, body: data, effectiveURL: url)
}

@Suite("Decoding the real corpus and its edge cases")
struct DecodingTests {
    @Test(arguments: [("inessential", 20, "Brent Simmons"), ("DaringFireball", 48, "John Gruber"), ("3960", 20, "Frank Boës")])
    func realJSONFeeds(name: String, count: Int, author: String) throws {
        let data = try Fixtures.data("jsonfeed/\(name).json")
        let page = try JSONFeedKind().page(from: response(data))
        #expect(page.items.count == count)
        #expect(page.next == nil)
        #expect(page.items.allSatisfy { !$0.id.isEmpty && $0.text != nil })
        #expect(page.items.first?.author == author)
        #expect(page.items.allSatisfy { $0.published.map { Timestamp.parse($0) != nil && $0.hasSuffix("Z") } ?? true })
        // `source` is each item byte for byte, minus whitespace between tokens.
        let original = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let items = original?["items"] as? [[String: Any]] ?? []
        for (item, raw) in zip(page.items, items) {
            let decoded = try JSONSerialization.jsonObject(with: item.source.data) as? NSDictionary
            #expect(decoded?.isEqual(to: raw) == true)
            #expect(!item.source.text.contains("\n"), "compact, so it embeds in JSON Lines")
        }
    }

    @Test func jsonFeedItemsInheritTheFeedAuthorAndPreferContentText() throws {
        let page = try JSONFeedKind().page(from: response("""
            {"version":"https://jsonfeed.org/version/1.1","title":"T","authors":[{"name":"Feed Author"}],
             "_extension":{"x":1},"unknown":true,
             "items":[
               {"id":"a","content_text":"plain","content_html":"<p>html</p>","authors":[{"name":"Item Author"}]},
               {"id":7,"content_html":"<p>only html</p>","date_published":"2026-11-01T10:00:00+01:00"},
               {"id":"  ","content_text":"blank id"},
               {"content_text":"no id"},
               {"id":{"nested":1},"content_text":"object id"},
               {"id":"1.0","title":"t","content_text":"v1 author","author":{"name":"Old Style"}}
             ],
             "next_url":"page2.json"}
            """, url: "http://127.0.0.1/feeds/page1.json"))
        #expect(page.items.map(\.id) == ["a", "7", "1.0"], "numeric ids become strings; items without a usable id are skipped")
        #expect(page.items.map(\.text) == ["plain", "<p>only html</p>", "v1 author"])
        #expect(page.items.map(\.author) == ["Item Author", "Feed Author", "Old Style"])
        #expect(page.items[1].published == "2026-11-01T09:00:00Z")
        #expect(page.next == "http://127.0.0.1/feeds/page2.json", "relative next_url resolves against the page")
    }

    @Test func jsonFeedDataErrors() {
        let cases: [(String, String)] = [
            (#"{"version":"https://jsonfeed.org/version/2","title":"T","items":[]}"#, "unsupported version"),
            (#"[{"id":"1"}]"#, "the top level"),
            (#"{"version":"https://jsonfeed.org/version/1","items":[]}"#, "missing field `title`"),
            (#"{"version":"https://jsonfeed.org/version/1","title":"T","items":{"id":1}}"#, "field `items`"),
            ("", "empty body"),
            ("<html>not json</html>", "not valid JSON"),
        ]
        for (body, message) in cases {
            #expect {
                _ = try JSONFeedKind().page(from: response(body))
            } throws: { error in
                guard case .badData(let text) = error as? FeedFailure else { return false }
                return text.contains(message) && (body.isEmpty || message == "unsupported version" || text.contains("input starts «"))
            }
        }
    }

    @Test func graphPagesWithBothTimeSpellings() throws {
        let page = try GraphFeed().page(from: response("""
            {"data":[
              {"id":"1_2","created_time":"2026-11-01T10:00:00+0000","message":"hello","from":{"name":"Ann","id":"1"}},
              {"id":"1_1","created_time":"2026-10-31T23:30:00-02:00","story":"Ann shared a link."},
              {"id":12345,"created_time":"2026-10-30T08:00:00Z"}
            ],"paging":{"cursors":{"before":"B","after":"A"},"next":"https://graph.example/v1/feed?after=A"}}
            """))
        #expect(page.items.map(\.id) == ["1_2", "1_1", "12345"])
        #expect(page.items.map(\.title) == [nil, "Ann shared a link.", nil])
        #expect(page.items.map(\.text) == ["hello", "Ann shared a link.", nil])
        #expect(page.items.map(\.author) == ["Ann", nil, nil])
        #expect(page.items.map(\.published) == ["2026-11-01T10:00:00Z", "2026-11-01T01:30:00Z", "2026-10-30T08:00:00Z"])
        #expect(page.next == "https://graph.example/v1/feed?after=A")

        let empty = try GraphFeed().page(from: response(#"{"data":[],"paging":{"next":"http://x/2"}}"#))
        #expect(empty.items.isEmpty && empty.next == "http://x/2", "an empty page can still have next")
        let last = try GraphFeed().page(from: response(#"{"data":[{"id":"9"}]}"#))
        #expect(last.next == nil)
        #expect(throws: FeedFailure.self) { try GraphFeed().page(from: response(#"{"data":{"id":"9"}}"#)) }
    }

    @Test func linkedItemsTakeTheFirstFieldPresent() throws {
        var headers = HTTPHeaders()
        headers.add(name: "Link", value: #"<https://api.example/issues?page=1>; rel="first", </issues?page=3>; rel="next""#)
        let page = try LinkedFeed().page(from: response("""
            [{"id":1,"title":"GitHub issue","body":"b","user":{"login":"octo"},"created_at":"2026-11-01T10:00:00Z","html_url":"https://h/1","url":"https://api/1"},
             {"id":"10987654321","content":"<p>toot</p>","account":{"acct":"ann@example.social"},"created_at":"2026-11-01T10:00:00.123Z","url":"https://m/1"},
             {"id":3,"text":"t","author":{"name":"Named"},"published":"2026-11-01T10:00:00+00:00"},
             {"id":4,"message":"m","author":"plain","date":"2026-11-01T10:00:00Z"},
             {"id":5,"userId":9},
             {"title":"no id"}, 42]
            """, url: "https://api.example/issues?page=2", headers: headers))
        #expect(page.items.map(\.id) == ["1", "10987654321", "3", "4", "5"])
        #expect(page.items.map(\.title) == ["GitHub issue", nil, nil, nil, nil])
        #expect(page.items.map(\.text) == ["b", "<p>toot</p>", "t", "m", nil])
        #expect(page.items.map(\.author) == ["octo", "ann@example.social", "Named", "plain", "9"])
        #expect(page.items.map(\.url) == ["https://h/1", "https://m/1", nil, nil, nil])
        #expect(page.items.map(\.published) == ["2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z",
                                                "2026-11-01T10:00:00Z", nil])
        #expect(page.next == "https://api.example/issues?page=3")
        #expect(throws: FeedFailure.self) { try LinkedFeed().page(from: response(#"{"id":1}"#)) }
    }

    @Test func postsFromTheCorpus() throws {
        let posts = try JSONDecoder().decode([Post].self, from: Fixtures.data("posts/posts.json"))
        #expect(posts.count == 100)
        #expect(posts.map(\.id) == Array(1...100))
        #expect(posts.allSatisfy { $0.body.contains("\n") })
        let item = try IndexedFeed.item(from: response(#"{"userId":3,"id":21,"title":"t","body":"b\nc"}"#))
        #expect(item == FeedItem(id: "21", title: "t", text: "b\nc", author: "3",
                                 source: RawJSON(compactText: #"{"userId":3,"id":21,"title":"t","body":"b\nc"}"#)))
        #expect {
            try IndexedFeed.item(from: response(#"{"userId":"x","id":21,"title":"t","body":"b"}"#))
        } throws: { error in
            (error as? FeedFailure).map { "\($0)".contains("field `userId`") && "\($0)".contains("«{\"userId\":\"x\"") } ?? false
        }
    }
}

@Suite("Link headers, timestamps, raw JSON")
struct ParsingTests {
    @Test func linkHeaders() {
        let links = LinkHeader.parse(#"<https://a/?page=2>; rel="next last"; title="a, b; c", <https://a/?page=1>;rel=prev , <x>; REL="Next""#)
        #expect(links.map(\.target) == ["https://a/?page=2", "https://a/?page=1", "x"])
        #expect(links.map(\.relations) == [["next", "last"], ["prev"], ["next"]])
        #expect(links.first?.parameters["title"] == "a, b; c")
        var headers = HTTPHeaders()
        headers.add(name: "link", value: #"</api/v1/timelines/home?max_id=109>; rel="next""#)
        headers.add(name: "Link", value: #"</api/v1/timelines/home?min_id=200>; rel="prev""#)
        #expect(LinkHeader.next(in: headers, base: "https://m.example/api/v1/timelines/home")
                == "https://m.example/api/v1/timelines/home?max_id=109")
        #expect(LinkHeader.next(in: HTTPHeaders(), base: "https://x/") == nil)
    }

    @Test func timestamps() {
        #expect(Timestamp.normalize("2026-11-01T10:00:00+0000") == "2026-11-01T10:00:00Z")
        #expect(Timestamp.normalize("2026-11-01T10:00:00.5+05:30") == "2026-11-01T04:30:00Z")
        #expect(Timestamp.normalize("2024-02-29t23:59:59z") == "2024-02-29T23:59:59Z")
        #expect(Timestamp.normalize("2026-11-01") == nil)
        #expect(Timestamp.normalize("yesterday") == nil)
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    }

    @Test func rawJSONSlicing() {
        let body = Array(#"{"a":"]}\"[","items" : [ {"x": [1, {"y":"}"}]} , 2 , "s\"" , null ] , "z":1}"#.utf8)
        #expect(RawJSON.arrayElements(in: body, key: "items")?.map(\.text) == [#"{"x":[1,{"y":"}"}]}"#, "2", #""s\"""#, "null"])
        #expect(RawJSON.arrayElements(in: Array("[]".utf8), key: nil)?.isEmpty == true)
        #expect(RawJSON.arrayElements(in: body, key: "missing") == nil)
        #expect(RawJSON(Array("{ \"a b\" : [ 1 ,\n 2 ] }".utf8)).text == #"{"a b":[1,2]}"#)
    }
}
