@testable import FeedModel
@testable import FeedStore
@testable import FeedReactor
@testable import FeedRendering
@testable import FeedCore
import Foundation
import Testing

/// `feedcli export`: stored entries as one JSON Feed 1.1 or Atom 1.0 document, checked with real
/// parsers (python3's `xml.etree` and `json`), whatever the entries hold.
@Suite("export as JSON Feed and Atom", .timeLimit(.minutes(3)))
struct ExportTests {
    /// Items that test the writers: markup characters, `]]>`, NUL and other controls, HTML, text
    /// beyond the BMP, no title at all.
    static let hostileItems = #"""
    [{"id":"1","title":"Fish & <chips> ]]> \u0000\u0001\u001b\u007f end","body":"plain text","user":{"login":"ann"},"created_at":"2026-11-01T10:00:00Z","html_url":"https://e.example/1?a=1&b=\"2\""},
     {"id":"2","title":"Emoji 🦀 and 𝄞","body":"<p>Some <b>HTML</b> &amp; more</p>","created_at":"2026-11-02T10:00:00Z"},
     {"id":"3","body":"An entry without a title, whose text stands in for it"}]
    """#

    func session(feeds: [String: String]) throws -> (StoreSession, [LoopbackServer]) {
        let session = StoreSession()
        var servers: [LoopbackServer] = []
        for (name, body) in feeds.sorted(by: { $0.key < $1.key }) {
            let server = try LoopbackServer { _, connection in connection.respond(200, text: body) }
            try session.add(name, server.baseURL + "/items", kind: "linked")
            #expect(try session.feedcli("sync", name).status == 0)
            servers.append(server)
        }
        return (session, servers)
    }

    @Test func atomParsesAndCarriesEveryEntry() throws {
        let (session, _) = try session(feeds: ["h": Self.hostileItems])
        let check = try Feedcli.shell(#"""
            "$FEEDCLI" export h --format atom --state "$S" | python3 -c '
            import sys, json, xml.etree.ElementTree as ET
            ns = {"a": "http://www.w3.org/2005/Atom"}
            root = ET.parse(sys.stdin).getroot()
            entries = [{"id": e.findtext("a:id", namespaces=ns), "title": e.findtext("a:title", namespaces=ns),
                        "updated": e.findtext("a:updated", namespaces=ns), "link": (e.find("a:link", ns).get("href") if e.find("a:link", ns) is not None else None),
                        "author": e.findtext("a:author/a:name", namespaces=ns),
                        "content": e.findtext("a:content", namespaces=ns), "type": (e.find("a:content", ns).get("type") if e.find("a:content", ns) is not None else None)}
                       for e in root.findall("a:entry", ns)]
            print(json.dumps({"id": root.findtext("a:id", namespaces=ns), "title": root.findtext("a:title", namespaces=ns),
                              "updated": root.findtext("a:updated", namespaces=ns), "entries": entries}))'
            """#, environment: ["S": session.state])
        #expect(check.status == 0, "the document parses: \(check.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
        #expect(document["title"] as? String == "h" && (document["id"] as? String)?.hasPrefix("tag:feedcli,2026:") == true)
        let entries = try #require(document["entries"] as? [[String: Any]])
        #expect(entries.compactMap { $0["id"] as? String } == ["tag:feedcli,2026:h/1", "tag:feedcli,2026:h/2", "tag:feedcli,2026:h/3"],
                "newest first (a linked page lists newest first), ids stable")
        let first = try #require(entries.first)
        #expect(first["title"] as? String == "Fish & <chips> ]]>  end", "controls dropped, markup kept as text")
        #expect(first["link"] as? String == #"https://e.example/1?a=1&b="2""#)
        #expect(first["author"] as? String == "ann" && first["updated"] as? String == "2026-11-01T10:00:00Z")
        #expect(entries[1]["title"] as? String == "Emoji 🦀 and 𝄞", "text beyond the BMP intact")
        #expect(entries[1]["type"] as? String == "html" && entries[1]["content"] as? String == "<p>Some <b>HTML</b> &amp; more</p>")
        #expect((entries[2]["title"] as? String)?.hasPrefix("An entry without a title") == true, "a title is required: the text stands in")
    }

    @Test func jsonFeedHasTheSpecsRequiredFields() throws {
        let (session, _) = try session(feeds: ["h": Self.hostileItems, "k": Self.hostileItems])
        let run = try session.feedcli("export", "--format", "jsonfeed")
        #expect(run.status == 0, "\(run.stderr)")
        let check = try Feedcli.shell(#"""
            "$FEEDCLI" export --format jsonfeed --state "$S" | python3 -c '
            import sys, json
            feed = json.load(sys.stdin)
            assert feed["version"] == "https://jsonfeed.org/version/1.1", feed["version"]
            assert isinstance(feed["title"], str)
            ids = [item["id"] for item in feed["items"]]
            assert all(isinstance(i, str) for i in ids) and len(set(ids)) == len(ids) == 6, ids
            assert all(("content_text" in item) or ("content_html" in item) for item in feed["items"])
            print(json.dumps(ids))'
            """#, environment: ["S": session.state])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains(#""k/3""#) && check.stdout.contains(#""h/1""#), "FEED/ID across feeds: \(check.stdout)")
        let one = try #require(try session.feedcli("export", "h", "--format", "jsonfeed").json as? [String: Any])
        let items = try #require(one["items"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == ["1", "2", "3"], "one feed: the entries' own ids")
        #expect(items[0]["title"] as? String == "Fish & <chips> ]]> \u{0}\u{1}\u{1B}\u{7F} end", "JSON keeps every character")
        #expect((items[0]["authors"] as? [[String: Any]])?.first?["name"] as? String == "ann")
        #expect(items[1]["content_html"] as? String == "<p>Some <b>HTML</b> &amp; more</p>")
        #expect(items[0]["date_published"] as? String == "2026-11-01T10:00:00Z")
    }

    @Test func limitUnreadAndNothingChanged() throws {
        let (session, _) = try session(feeds: ["h": Self.hostileItems])
        #expect(try session.feedcli("read", "1", "--feed", "h").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: session.state))
        let unread = try #require(try session.feedcli("export", "h", "--format", "jsonfeed", "--unread").json as? [String: Any])
        #expect((unread["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["2", "3"])
        let newest = try #require(try session.feedcli("export", "h", "--format", "jsonfeed", "--limit", "1").json as? [String: Any])
        #expect((newest["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["1"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: session.state)) == before, "export changes nothing in the store")
        #expect(try session.feedcli("status", "h", "--json").status == 0)
        #expect(try session.feedcli("export", "nosuch", "--format", "atom").status == 66)
        #expect(try session.feedcli("export", "h").status == 64, "--format is required")
    }

    @Test func aReaderThatLeavesEndsTheExportQuietly() throws {
        let items = "[" + (1...3000).map { #"{"id":"\#($0)","title":"entry \#($0)","body":"\#(String(repeating: "x", count: 200))"}"# }
            .joined(separator: ",") + "]"
        let (session, _) = try session(feeds: ["big": items])
        let run = try Feedcli.shell(#""$FEEDCLI" export --format atom --state "$S" | head -c 100 >/dev/null; echo "${PIPESTATUS[0]}""#,
                                    environment: ["S": session.state])
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(run.stderr)")
    }

    @Test func xmlTextDropsWhatXMLCannotCarry() {
        #expect(XMLText.escaped("a\u{0}b\u{8}c\td\ne\u{FFFE}f\u{FFFF}g\u{1F980}\u{7F}\u{9B}é") == "abc\td\nefg\u{1F980}é")
        #expect(XMLText.escaped(#"]]> & <x a="1">"#) == "]]&gt; &amp; &lt;x a=&quot;1&quot;&gt;")
        #expect(FeedExportWriter.tag("f/a b/c") == "tag:feedcli,2026:f/a%20b%2Fc")
    }
}
