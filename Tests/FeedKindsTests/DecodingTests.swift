import FeedTesting
import Foundation
import Testing

@testable import FeedHTTP
@testable import FeedKinds
@testable import FeedModel

private func response(_ body: String, url: String = "http://127.0.0.1/feed", headers: HTTPHeaders = HTTPHeaders())
    -> HTTPResponse
{
    HTTPResponse(status: 200, headers: headers, body: Data(body.utf8), effectiveURL: url)
}

private func response(_ data: Data, url: String = "http://127.0.0.1/feed") -> HTTPResponse {
    HTTPResponse(status: 200, body: data, effectiveURL: url)
}

@Suite("Decoding the real corpus and its edge cases", .timeLimit(.minutes(3)))
struct DecodingTests {
    @Test(arguments: [
        ("inessential", 20, "Brent Simmons"), ("DaringFireball", 48, "John Gruber"), ("3960", 20, "Frank Boës"),
    ])
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
            let decoded = try JSONSerialization.jsonObject(with: Data(item.source.text.utf8)) as? NSDictionary
            #expect(decoded?.isEqual(to: raw) == true)
            #expect(!item.source.text.contains("\n"), "compact, so it embeds in JSON Lines")
        }
    }

    @Test func jsonFeedItemsInheritTheFeedAuthorAndPreferContentText() throws {
        let page = try JSONFeedKind().page(
            from: response(
                """
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
        #expect(
            page.items.map(\.id) == ["a", "7", "1.0"],
            "numeric ids become strings; items without a usable id are skipped")
        #expect(page.items.map(\.text) == ["plain", "<p>only html</p>", "v1 author"])
        #expect(page.items.map(\.author) == ["Item Author", "Feed Author", "Old Style"])
        #expect(page.items[1].published == "2026-11-01T09:00:00Z")
        #expect(page.next == "http://127.0.0.1/feeds/page2.json", "relative next_url resolves against the page")
    }

    @Test func jsonFeedDataErrors() {
        let cases: [(String, String)] = [
            (#"{"version":"https://jsonfeed.org/version/2","title":"T","items":[]}"#, "unsupported version"),
            (
                #"[{"id":"1"}]"#,
                "expected a JSON Feed object with `version` and `items`; got an array (this looks like a linked page (a JSON array): use --kind linked)"
            ),
            (
                #"{"version":"https://jsonfeed.org/version/1","title":"T","items":{"id":1}}"#,
                "its `items` is an object, not an array"
            ),
            (#"{"data":[],"paging":{}}"#, "this looks like a Graph page: use --kind graph"),
            ("", "the body is empty"),
            (
                "<html>not json</html>",
                "not valid JSON (unexpected character) at byte 0; it starts «<html>not json</html>»"
            ),
        ]
        for (body, message) in cases {
            #expect {
                _ = try JSONFeedKind().page(from: response(body))
            } throws: { error in
                guard case .badData(let text) = error as? FeedFailure else { return false }
                return text.contains(message) && !text.contains("Array<") && !text.contains("Dictionary<")
            }
        }
        let untitled = try? JSONFeedKind().page(
            from: response(#"{"version":"https://jsonfeed.org/version/1","items":[{"id":1}]}"#))
        #expect(untitled?.items.map(\.id) == ["1"], "a missing feed title is forgiven")
    }

    @Test func graphPagesWithBothTimeSpellings() throws {
        let page = try GraphFeed().page(
            from: response(
                """
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
        #expect(
            page.items.map(\.published) == ["2026-11-01T10:00:00Z", "2026-11-01T01:30:00Z", "2026-10-30T08:00:00Z"])
        #expect(page.next == "https://graph.example/v1/feed?after=A")

        let empty = try GraphFeed().page(from: response(#"{"data":[],"paging":{"next":"http://x/2"}}"#))
        #expect(empty.items.isEmpty && empty.next == "http://x/2", "an empty page can still have next")
        let last = try GraphFeed().page(from: response(#"{"data":[{"id":"9"}]}"#))
        #expect(last.next == nil)
        #expect(throws: FeedFailure.self) { try GraphFeed().page(from: response(#"{"data":{"id":"9"}}"#)) }
    }

    @Test func linkedItemsTakeTheFirstFieldPresent() throws {
        var headers = HTTPHeaders()
        headers.add(
            name: "Link", value: #"<https://api.example/issues?page=1>; rel="first", </issues?page=3>; rel="next""#)
        let page = try LinkedFeed().page(
            from: response(
                """
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
        #expect(
            page.items.map(\.published) == [
                "2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z",
                "2026-11-01T10:00:00Z", nil,
            ])
        #expect(page.next == "https://api.example/issues?page=3")
        #expect(throws: FeedFailure.self) { try LinkedFeed().page(from: response(#"{"id":1}"#)) }
    }

    /// A stream's items are read one by one (`page(ofItems:)`), not as one array: the same
    /// items, fields, sources and skipped items as the page of them all, for `linked`'s rules
    /// and for a format that reads the page whole (a filter around them).
    @Test func aStreamsItemsReadOneByOneAreThePageOfThemAll() throws {
        let items = [
            #"{"id":1,"title":"GitHub issue","body":"b","user":{"login":"octo"},"created_at":"2026-11-01T10:00:00Z"}"#,
            #"{ "id" : "x\u00e9\ud800", "content" : "<p>toot</p>", "account" : {"acct":"ann"} }"#,
            #"{"title":"no id"}"#,
            #"{"id":"   "}"#,
            #"{"id":5,"userId":9,"text":"caf\u00e9 ☕ \n line","extra":[1,{"a":null}]}"#,
        ]
        let bytes = items.map { Array($0.utf8) }
        let url = "https://stream.example/events"
        let whole = try LinkedFeed().page(from: response("[" + items.joined(separator: ",") + "]", url: url))
        let apart = try LinkedFeed().page(ofItems: bytes, url: url)
        #expect(Array(apart.items) == Array(whole.items))
        #expect(
            apart.items.map(\.source.text) == [
                items[0], #"{"id":"x\u00e9\ud800","content":"<p>toot</p>","account":{"acct":"ann"}}"#, items[4],
            ])
        #expect(apart.skipped.count == 2 && apart.skipped == whole.skipped, "the same positions and reasons")
        #expect(apart.next == nil)
    }

    @Test func postsFromTheCorpus() throws {
        let posts = try #require(JSONParser.parse(Fixtures.data("posts/posts.json")).value.array)
        #expect(posts.count == 100)
        #expect(posts.map { $0["id"]?.id } == (1...100).map { String($0) })
        #expect(posts.allSatisfy { $0["body"]?.string?.contains("\n") == true })
        let item = try IndexedFeed.item(from: response(#"{"userId":3,"id":21,"title":"t","body":"b\nc"}"#))
        #expect(
            item
                == FeedItem(
                    id: "21", title: "t", text: "b\nc", author: "3",
                    source: RawJSON(compactText: #"{"userId":3,"id":21,"title":"t","body":"b\nc"}"#)))
        #expect(
            try IndexedFeed.item(from: response(#"{"userId":"x","title":"t"}"#)) == nil, "no id: the index is skipped")
        #expect {
            try IndexedFeed.item(from: response(#"{"version":"https://jsonfeed.org/version/1.1","items":[]}"#))
        } throws: { error in
            "\(error)".contains("this looks like a JSON Feed: use --kind jsonfeed")
        }
    }

    // MARK: hostile data

    @Test func idsKeepTheirExactJSONTextInEveryKind() throws {
        let ids = [
            "123456789012345678901234567890", "123456789012345678901234567891", "1.5", "1e300", "9223372036854775807",
            "-0", "1.0",
        ]
        let items = ids.map { #"{"id":\#($0)}"# }.joined(separator: ",")
        let linked = try LinkedFeed().page(from: response("[\(items)]"))
        let graph = try GraphFeed().page(from: response(#"{"data":[\#(items)]}"#))
        let feed = try JSONFeedKind().page(
            from: response(#"{"version":"https://jsonfeed.org/version/1","items":[\#(items)]}"#))
        #expect(linked.items.map(\.id) == ids)
        #expect(graph.items.map(\.id) == ids)
        #expect(feed.items.map(\.id) == ids)
        let post = try IndexedFeed.item(from: response(#"{"userId":18446744073709551616,"id":9223372036854775807}"#))
        #expect(post?.id == "9223372036854775807" && post?.author == "18446744073709551616")
    }

    @Test func duplicateKeysResolveAsJqDoesLastWins() throws {
        let page = try LinkedFeed().page(from: response(#"[{"id":1,"title":"first","id":2,"title":"last"}]"#))
        #expect(page.items.map(\.id) == ["2"])
        #expect(page.items.map(\.title) == ["last"])
        #expect(
            page.items.first?.source.text == #"{"id":1,"title":"first","id":2,"title":"last"}"#, "source is as sent")
        let feed = try JSONFeedKind().page(
            from: response(
                #"{"version":"https://jsonfeed.org/version/1","items":[{"id":"a"}],"items":[{"id":"b"},{"id":"c"}]}"#))
        #expect(
            feed.items.map(\.id) == ["b", "c"], "the last `items` is the one read, and its raw items are the ones kept")
        #expect(feed.items.map(\.source.text) == [#"{"id":"b"}"#, #"{"id":"c"}"#])
    }

    @Test func aLeadingByteOrderMarkIsAccepted() throws {
        let body =
            Data([0xEF, 0xBB, 0xBF])
            + Data(#"{"version":"https://jsonfeed.org/version/1.1","title":"T","items":[{"id":"x"}]}"#.utf8)
        #expect(try JSONFeedKind().page(from: response(body)).items.map(\.id) == ["x"])
        let post = try IndexedFeed.item(from: response(Data([0xEF, 0xBB, 0xBF]) + Data(#" {"id":1} "#.utf8)))
        #expect(post?.source.text == #"{"id":1}"#)
    }

    @Test func nulAndEveryOtherCharacterSurviveDecoding() throws {
        let page = try LinkedFeed().page(
            from: response(#"[{"id":"a\u0000b","title":"x\u0000y\ud83d\ude00\ud800z","body":"é\t"}]"#))
        #expect(page.items.first?.id == "a\u{0}b")
        #expect(
            page.items.first?.title == "x\u{0}y😀\u{FFFD}z", "NUL kept, a surrogate pair joined, a lone one replaced")
        #expect(page.items.first?.text == "é\t")
    }

    @Test func malformedJSONFailsClearlyWithAShortExcerpt() {
        let deep = String(repeating: "[", count: 100_000)
        let cases = [
            deep, "[1,]", #"{"a" 1}"#, "[\"a\u{1}\"]", "[01]", "[1.]", "[1e]", "[tru]", #"["\x"]"#, #"["\u12"]"#,
            "[1] x", "\"unterminated", String(repeating: "x", count: 1_000_000),
        ]
        for body in cases {
            #expect {
                _ = try LinkedFeed().page(from: response(body))
            } throws: { error in
                guard case .badData(let text) = error as? FeedFailure else { return false }
                return text.contains("it starts «") && text.count < 400
            }
        }
    }

    @Test func aPageOfFortyThousandItemsDecodes() throws {
        let body = "[" + (1...40_000).map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]"
        let page = try LinkedFeed().page(from: response(body))
        #expect(page.items.count == 40_000)
        #expect(page.items.last?.id == "40000")
    }
}

@Suite("Link headers, timestamps, raw JSON", .timeLimit(.minutes(3)))
struct ParsingTests {
    /// A string with no escape is checked as UTF-8 eight bytes at a time (all ASCII: taken as
    /// it is); one byte of another kind anywhere in it, valid or not, is still told apart.
    @Test func stringsAreCheckedAsUTF8WhereverTheirOtherBytesFall() throws {
        for length in 0..<20 {
            let ascii = String(repeating: "a", count: length)
            #expect(try JSONParser.value(of: Data("\"\(ascii)\"".utf8)) == .string(ascii))
            for position in 0...length {
                var valid = Array(ascii.utf8)
                valid.insert(contentsOf: Array("é".utf8), at: position)
                let text = String(decoding: valid, as: UTF8.self)
                #expect(
                    try JSONParser.value(of: Data([0x22] + valid + [0x22])) == .string(text),
                    "é at \(position) of \(length)")
                var invalid = Array(ascii.utf8)
                invalid.insert(0xFF, at: position)
                let value = try JSONParser.value(of: Data([0x22] + invalid + [0x22]))
                guard case .inexactString(let inexact) = value else {
                    Issue.record("a byte that is not UTF-8 at \(position) of \(length) read as \(value)")
                    continue
                }
                #expect(inexact.decoded == String(decoding: invalid, as: UTF8.self))
            }
        }
    }

    @Test func linkHeaders() {
        let links = LinkHeader.parse(
            #"<https://a/?page=2>; rel="next last"; title="a, b; c", <https://a/?page=1>;rel=prev , <x>; REL="Next""#)
        #expect(links.map(\.target) == ["https://a/?page=2", "https://a/?page=1", "x"])
        #expect(links.map(\.relations) == [["next", "last"], ["prev"], ["next"]])
        #expect(links.first?.parameters["title"] == "a, b; c")
        var headers = HTTPHeaders()
        headers.add(name: "link", value: #"</api/v1/timelines/home?max_id=109>; rel="next""#)
        headers.add(name: "Link", value: #"</api/v1/timelines/home?min_id=200>; rel="prev""#)
        #expect(
            LinkHeader.next(in: headers, base: "https://m.example/api/v1/timelines/home")
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
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1e300)) == "9999-12-31T23:59:59Z", "clamped, not a trap")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -1e300)) == "0001-01-01T00:00:00Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
    }

    @Test func timestampsAreFormattedAsTheCLibraryDoesAcrossTheCalendar() {
        // The formatter computes the civil date itself (no time zone file); `gmtime_r` is the
        // reference, over leap years, century rules and days before 1970.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let seconds = Int.random(in: -62_135_596_800...253_402_300_799, using: &generator)
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900,
                Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour),
                Int(parts.tm_min), Int(parts.tm_sec))
            #expect(Timestamp.format(Date(timeIntervalSince1970: Double(seconds))) == expected, "\(seconds)")
            #expect(Timestamp.parse(expected) == Date(timeIntervalSince1970: Double(seconds)))
        }
    }

    @Test func retryAfterInSecondsOrAsADateIsCappedAtSevenDays() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .zero)
        #expect(RetryAfter.parse("9223372036854775807", now: now) == RetryAfter.cap)
        #expect(RetryAfter.parse("99999999999999999999999999", now: now) == RetryAfter.cap)
        #expect(RetryAfter.parse("604801", now: now) == RetryAfter.cap)
        #expect(RetryAfter.parse("Tue, 14 Nov 2023 22:15:20 GMT", now: now) == .seconds(120))
        #expect(RetryAfter.parse("Tuesday, 14-Nov-23 22:15:20 GMT", now: now) == .seconds(120))
        #expect(RetryAfter.parse("Tue Nov 14 22:15:20 2023", now: now) == .seconds(120))
        #expect(RetryAfter.parse("Mon, 01 Jan 2001 00:00:00 GMT", now: now) == .zero, "a past date is now")
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == RetryAfter.cap)
        for junk in ["", "-5", "1.5", "soon", "Tue, 99 Nov 2023 22:15:20 GMT", "Tue, 14 Nov 2023 25:15:20 GMT"] {
            #expect(RetryAfter.parse(junk, now: now) == nil, "\(junk)")
        }
    }

    /// A projection builds the parts it names and checks the rest: an invalid byte anywhere
    /// still fails the parse.
    @Test func aProjectionBuildsOnlyWhatItNames() throws {
        let body = Data(
            #"{"id":7,"big":[1,2,{"deep":[3]}],"author":{"name":"Ann","bio":"…","name":"Bo"},"authors":[{"name":"A","x":1},{"name":"B"}],"n":null}"#
                .utf8)
        let projection = JSONProjection.members(["id", "n"])
            .union(
                .parts([
                    "author": .members(["name"]), "authors": .parts([:], first: .members(["name"])), "big": .kindOnly,
                ]))
        let value = try JSONParser.value(of: body, projection)
        #expect(
            value
                == .object(
                    JSONObject([
                        ("id", .number("7")), ("big", .array([])),
                        ("author", .object(JSONObject([("name", .string("Ann")), ("name", .string("Bo"))]))),
                        ("authors", .array([.object(JSONObject([("name", .string("A"))]))])), ("n", .null),
                    ])))
        #expect(value[["author", "name"]]?.string == "Bo", "the last member of a name is still the one read")
        #expect(
            try JSONParser.parse(body, .kindOnly).source.text == String(decoding: body, as: UTF8.self),
            "the compact text is all of it")
        for broken in [
            #"{"id":1,"skipped":[1,2,}"#, #"{"id":1,"skipped":"\q"}"#, #"{"id":1,"skipped":01}"#,
            #"{"id":1,"skipped":{"a" 1}}"#, #"{"id":1,"skipped":tru}"#, "{\"id\":1,\"skipped\":\"\u{01}\"}",
        ] {
            #expect(throws: JSONSyntaxError.self, "\(broken)") {
                try JSONParser.value(of: Data(broken.utf8), .kindOnly)
            }
        }
        #expect(JSONParser.memberNames(of: body, limit: 3) == ["id", "big", "author"])
        #expect(JSONParser.memberNames(of: Data("[1]".utf8), limit: 3) == nil)
        #expect(JSONParser.memberNames(of: Data("{}".utf8), limit: 3) == [])
    }

    @Test func rawJSONSlicing() throws {
        let body = Data(#"{"a":"]}\"[","items" : [ {"x": [1, {"y":"} "}]} , 2 , "s\" " , null ] , "z":1}"#.utf8)
        let page = try JSONParser.parsePage(body, items: .member("items"))
        let spans = try #require(page.items)
        #expect(
            (0..<spans.count).map { spans.element($0).source.text } == [
                #"{"x":[1,{"y":"} "}]}"#, "2", #""s\" ""#, "null",
            ])
        #expect(
            spans.value(0)
                == .object(JSONObject([("x", .array([.number("1"), .object(JSONObject([("y", .string("} "))]))]))])))
        #expect(page.value["items"] == .array([]), "the items are kept as spans, not in the value")
        #expect(page.value["z"] == .number("1"))
        #expect(try JSONParser.parsePage(Data("[]".utf8), items: .topLevel).items?.count == 0)
        #expect(try JSONParser.parsePage(body, items: .member("missing")).items == nil)
        #expect(try JSONParser.parse(Data("{ \"a b\" : [ 1 ,\n 2 ] }".utf8)).source.text == #"{"a b":[1,2]}"#)
        #expect(
            try JSONParser.parsePage(Data(#"{"a":{"items":[1]}}"#.utf8), items: .member("items")).items == nil,
            "only the top-level member is captured")
        #expect(
            try JSONParser.parsePage(Data(#"{"items":[1,2],"items":{"k":3}}"#.utf8), items: .member("items")).items
                == nil,
            "a later member of the name that is not an array is the one read: there are no items")
        let last = try JSONParser.parsePage(Data(#"{"items":[1,2],"items":[3]}"#.utf8), items: .member("items"))
        #expect(last.items.map { spans in (0..<spans.count).map { spans.element($0).source.text } } == ["3"])
        // A slice of a larger buffer (as a response body can be) reads its own bytes.
        let padded = Data(#"xx[{"id":1},{"id":2}]"#.utf8)
        let slice = try #require(try JSONParser.parsePage(padded.dropFirst(2), items: .topLevel).items)
        #expect(slice.element(1).source.text == #"{"id":2}"#)
    }
}
