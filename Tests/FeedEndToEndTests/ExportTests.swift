import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedModel
@testable import FeedReactor
@testable import FeedRendering
@testable import FeedStore

/// `feedcli export`: stored entries as one JSON Feed 1.1 or Atom 1.0 document, checked with real
/// parsers (python3's `xml.etree` and `json`), whatever the entries hold.
@Suite("export as JSON Feed and Atom", .timeLimit(.minutes(3)))
struct ExportTests {
    /// Items that test the writers: markup characters, `]]>`, NUL and other controls, HTML (a
    /// linked item's `content`, as Mastodon sends it), text beyond the BMP, no title at all.
    static let hostileItems = #"""
        [{"id":"1","title":"Fish & <chips> ]]> \u0000\u0001\u001b\u007f end","body":"plain text","user":{"login":"ann"},"created_at":"2026-11-01T10:00:00Z","html_url":"https://e.example/1?a=1&b=\"2\""},
         {"id":"2","title":"Emoji 🦀 and 𝄞","content":"<p>Some <b>HTML</b> &amp; more</p>","created_at":"2026-11-02T10:00:00Z"},
         {"id":"3","body":"An entry without a title, whose text stands in for it"}]
        """#

    func session(feeds: [String: String]) async throws -> (StoreSession, [LoopbackServer]) {
        let session = StoreSession()
        var servers: [LoopbackServer] = []
        for (name, body) in feeds.sorted(by: { $0.key < $1.key }) {
            let server = try LoopbackServer { _, connection in connection.respond(200, text: body) }
            try await session.add(name, server.baseURL + "/items", kind: "linked")
            #expect(try await session.feedcli("sync", name).status == 0)
            servers.append(server)
        }
        return (session, servers)
    }

    @Test func atomParsesAndCarriesEveryEntry() async throws {
        let (session, _) = try await session(feeds: ["h": Self.hostileItems])
        let check = try await Feedcli.shell(
            #"""
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
        #expect(
            document["title"] as? String == "h" && (document["id"] as? String)?.hasPrefix("tag:feedcli,2026:") == true)
        let listed = try #require(document["entries"] as? [[String: Any]])
        #expect(
            listed.compactMap { $0["id"] as? String } == [
                "tag:feedcli,2026:h/3", "tag:feedcli,2026:h/2", "tag:feedcli,2026:h/1",
            ],
            "newest first by publication (3 has none: its fetch time, the newest), ids stable")
        let entries = Array(listed.reversed())
        let first = try #require(entries.first)
        #expect(first["title"] as? String == "Fish & <chips> ]]>  end", "controls dropped, markup kept as text")
        #expect(first["link"] as? String == #"https://e.example/1?a=1&b="2""#)
        #expect(first["author"] as? String == "ann" && first["updated"] as? String == "2026-11-01T10:00:00Z")
        #expect(entries[1]["title"] as? String == "Emoji 🦀 and 𝄞", "text beyond the BMP intact")
        #expect(
            entries[1]["type"] as? String == "html"
                && entries[1]["content"] as? String == "<p>Some <b>HTML</b> &amp; more</p>")
        #expect(
            (entries[2]["title"] as? String)?.hasPrefix("An entry without a title") == true,
            "a title is required: the text stands in")
    }

    @Test func jsonFeedHasTheSpecsRequiredFields() async throws {
        let (session, _) = try await session(feeds: ["h": Self.hostileItems, "k": Self.hostileItems])
        let run = try await session.feedcli("export", "--format", "jsonfeed")
        #expect(run.status == 0, "\(run.stderr)")
        let check = try await Feedcli.shell(
            #"""
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
        #expect(
            check.stdout.contains(#""k/3""#) && check.stdout.contains(#""h/1""#),
            "FEED/ID across feeds: \(check.stdout)")
        let one = try #require(try await session.feedcli("export", "h", "--format", "jsonfeed").json as? [String: Any])
        let items = try #require(one["items"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == ["3", "2", "1"], "one feed: the entries' own ids, newest first")
        let oldest = Array(items.reversed())
        #expect(
            oldest[0]["title"] as? String == "Fish & <chips> ]]> \u{0}\u{1}\u{1B}\u{7F} end",
            "JSON keeps every character")
        #expect((oldest[0]["authors"] as? [[String: Any]])?.first?["name"] as? String == "ann")
        #expect(oldest[1]["content_html"] as? String == "<p>Some <b>HTML</b> &amp; more</p>")
        #expect(oldest[0]["date_published"] as? String == "2026-11-01T10:00:00Z")
    }

    @Test func limitUnreadAndNothingChanged() async throws {
        let (session, _) = try await session(feeds: ["h": Self.hostileItems])
        #expect(try await session.feedcli("read", "1", "--feed", "h").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: session.state))
        let unread = try #require(
            try await session.feedcli("export", "h", "--format", "jsonfeed", "--unread").json as? [String: Any])
        #expect((unread["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["3", "2"])
        let newest = try #require(
            try await session.feedcli("export", "h", "--format", "jsonfeed", "--limit", "1").json as? [String: Any])
        #expect(
            (newest["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["3"],
            "the newest by publication")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: session.state)) == before, "export changes nothing in the store")
        #expect(try await session.feedcli("status", "h", "--json").status == 0)
        #expect(try await session.feedcli("export", "nosuch", "--format", "atom").status == 66)
        #expect(try await session.feedcli("export", "h").status == 64, "--format is required")
    }

    /// What the W3C Feed Validation Service checks and readers trip on: every
    /// Atom entry has content or an alternate link; no blank title; text typed as the server sent
    /// it (a `body` holding `<p>` is text); links absolute and http(s) only; CR kept as `&#13;`;
    /// the all-feeds id unchanged when a feed is added; `--self` for `rel="self"` and `feed_url`.
    @Test func theDocumentValidatesAsTheW3CValidatorChecks() async throws {
        let items = #"""
            [{"id":"4","body":"a <p> in plain text","html_url":"javascript:alert(1)","created_at":"2026-10-04T10:00:00Z"},
             {"id":"5","title":"   ","body":"","html_url":"/relative/5","created_at":"2026-10-05T10:00:00Z"},
             {"id":"6","title":"no text, no link","created_at":"2026-10-06T10:00:00Z"},
             {"id":"7","title":"line\r\nbreak","body":"x","created_at":"2026-10-07T10:00:00Z"}]
            """#
        let (session, servers) = try await session(feeds: ["w": items])
        let atom = try await session.feedcli("export", "--format", "atom", "--self", "https://me.example/all.xml")
        #expect(atom.status == 0, "\(atom.stderr)")
        #expect(
            atom.stdout.contains(#"<link rel="self" type="application/atom+xml" href="https://me.example/all.xml"/>"#))
        #expect(atom.stdout.contains("<title>line&#13;\nbreak</title>"), "CR as a reference")
        let check = try await Feedcli.shell(
            #"""
            "$FEEDCLI" export --format atom --state "$S" | python3 -c '
            import sys, json, xml.etree.ElementTree as ET
            ns = {"a": "http://www.w3.org/2005/Atom"}
            root = ET.parse(sys.stdin).getroot()
            out = {}
            for e in root.findall("a:entry", ns):
                links = [l.get("href") for l in e.findall("a:link", ns) if l.get("rel", "alternate") == "alternate"]
                content = e.find("a:content", ns)
                out[e.findtext("a:id", namespaces=ns)] = {"title": e.findtext("a:title", namespaces=ns), "links": links,
                    "type": None if content is None else content.get("type"), "content": None if content is None else (content.text or "")}
            print(json.dumps({"id": root.findtext("a:id", namespaces=ns), "entries": out}))'
            """#, environment: ["S": session.state])
        #expect(check.status == 0, "\(check.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
        let entries = try #require(document["entries"] as? [String: [String: Any]])
        for (id, entry) in entries {
            #expect(
                entry["content"] is String || !((entry["links"] as? [String]) ?? []).isEmpty,
                "\(id): content or an alternate link")
            #expect(!((entry["title"] as? String) ?? "").trimmingCharacters(in: .whitespaces).isEmpty, "\(id): a title")
        }
        let four = try #require(entries["tag:feedcli,2026:w/4"])
        #expect(
            four["type"] as? String == "text" && (four["links"] as? [String])?.isEmpty == true,
            "text stays text; javascript: is left out")
        let five = try #require(entries["tag:feedcli,2026:w/5"])
        #expect(
            five["title"] as? String == "5" && five["links"] as? [String] == [servers[0].baseURL + "/relative/5"],
            "a relative link resolved")
        #expect(entries["tag:feedcli,2026:w/6"]?["type"] as? String == "text", "no text, no link: an empty content")
        let id = document["id"] as? String
        #expect(id == "tag:feedcli,2026:all")

        let other = try LoopbackServer { _, connection in connection.respond(200, text: "[]") }
        try await session.add("later", other.baseURL + "/x", kind: "linked")
        let again = try await Feedcli.shell(
            #""$FEEDCLI" export --format atom --state "$S" | grep -m1 "<id>""#, environment: ["S": session.state])
        #expect(again.stdout == "<id>\(id ?? "")</id>\n", "the all-feeds id does not change when a feed is added")
        let json = try #require(
            try await session.feedcli("export", "--format", "jsonfeed", "--self", "https://me.example/all.json").json
                as? [String: Any])
        #expect(json["feed_url"] as? String == "https://me.example/all.json")
        let fourth = (json["items"] as? [[String: Any]])?.first { $0["id"] as? String == "w/4" }
        #expect(fourth?["content_text"] as? String == "a <p> in plain text" && fourth?["url"] == nil)
        #expect(try await session.feedcli("export", "--format", "atom", "--self", "javascript:x").status == 64)
    }

    /// A JSON Feed added with its kind given (no detection, so no title at `feeds add`) is
    /// named by the title its documents carry once a sync reads one.
    @Test func aJSONFeedOfAGivenKindGetsItsTitleFromItsSync() async throws {
        let document = try String(
            contentsOf: Fixtures.root.appendingPathComponent("jsonfeed/DaringFireball.json"), encoding: .utf8)
        let server = try LoopbackServer { _, connection in
            connection.respond(200, headers: [("Content-Type", "application/feed+json")], text: document)
        }
        let (session, _) = try await session(feeds: [:])
        #expect(
            try await session.feedcli("feeds", "add", "fireball", server.baseURL + "/j", "--kind", "jsonfeed").status
                == 0)
        let before = try await session.feedcli("feeds", "export", "--opml")
        #expect(!before.stdout.contains("Daring Fireball"), "nothing asked the URL yet")
        #expect(try await session.feedcli("sync", "fireball").status == 0)
        let opml = try await session.feedcli("feeds", "export", "--opml")
        #expect(opml.stdout.contains(#"title="Daring Fireball""#), "\(opml.stdout)")
        let atom = try await session.feedcli("export", "fireball", "--format", "atom")
        #expect(atom.stdout.contains("<title>Daring Fireball</title>"), "\(atom.stdout.prefix(300))")
    }

    /// The source feed's own title (Daring Fireball's real JSON Feed, found by `feeds add`) names
    /// it in every export: the document of one feed, the author of an entry that has none, the
    /// `<source>` of an entry among several feeds, OPML's `title`; a copy and an import keep it.
    @Test func exportsKeepTheSourceFeedsTitle() async throws {
        let document = try String(
            contentsOf: Fixtures.root.appendingPathComponent("jsonfeed/DaringFireball.json"), encoding: .utf8)
        let server = try LoopbackServer { _, connection in
            connection.respond(200, headers: [("Content-Type", "application/feed+json")], text: document)
        }
        let (session, _) = try await session(feeds: ["h": Self.hostileItems])
        let add = try await session.feedcli("feeds", "add", "df", server.baseURL + "/feeds/json")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try await session.feedcli("sync", "df").status == 0)

        let one = try await session.feedcli("export", "df", "--format", "atom")
        #expect(one.stdout.contains("<title>Daring Fireball</title>\n<updated>"), "\(one.stdout.prefix(400))")
        #expect(!one.stdout.contains("<name>feedcli</name>"), "no made-up author")
        let json = try #require(
            try await session.feedcli("export", "df", "--format", "jsonfeed").json as? [String: Any])
        #expect(json["title"] as? String == "Daring Fireball")

        let all = try await session.feedcli("export", "--format", "atom")
        #expect(all.stdout.contains("<title>Daring Fireball and h</title>"), "\(all.stdout.prefix(400))")
        #expect(
            all.stdout.contains(
                "<source><id>tag:feedcli,2026:df</id><title>Daring Fireball</title></source>"))
        let authors = try await Feedcli.shell(
            #"""
            "$FEEDCLI" export h --format atom --state "$S" | python3 -c '
            import sys, xml.etree.ElementTree as ET
            ns = {"a": "http://www.w3.org/2005/Atom"}
            print(" ".join(e.findtext("a:author/a:name", namespaces=ns) or "-" for e in ET.parse(sys.stdin).getroot().findall("a:entry", ns)))'
            """#, environment: ["S": session.state])
        #expect(authors.stdout == "h h ann\n", "an entry without an author is its feed's (here: its name)")

        let opml = try await session.feedcli("feeds", "export", "--opml")
        #expect(opml.stdout.contains(#"text="Daring Fireball" title="Daring Fireball""#), "\(opml.stdout)")
        let copy = StoreSession()
        #expect(try await Feedcli.run(["store", "copy", session.state, copy.state]).status == 0)
        #expect(
            try await copy.feedcli("export", "df", "--format", "atom").stdout.contains("<title>Daring Fireball</title>")
        )
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("titles-\(UUID().uuidString).opml")
        try opml.stdout.write(to: file, atomically: true, encoding: .utf8)
        let imported = StoreSession()
        #expect(try await imported.feedcli("feeds", "import", file.path).status == 0)
        #expect(
            try await imported.feedcli("export", "df", "--format", "atom").stdout.contains(
                "<title>Daring Fireball</title>"), "an import keeps the title the file gives")
    }

    @Test func aReaderThatLeavesEndsTheExportQuietly() async throws {
        let items =
            "["
            + (1...3000).map {
                #"{"id":"\#($0)","title":"entry \#($0)","body":"\#(String(repeating: "x", count: 200))"}"#
            }
            .joined(separator: ",") + "]"
        let (session, _) = try await session(feeds: ["big": items])
        let run = try await Feedcli.shell(
            #""$FEEDCLI" export --format atom --state "$S" | head -c 100 >/dev/null; echo "${PIPESTATUS[0]}""#,
            environment: ["S": session.state])
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(run.stderr)")
    }

    @Test func xmlTextDropsWhatXMLCannotCarry() {
        #expect(
            XMLText.escaped("a\u{0}b\u{8}c\td\ne\u{FFFE}f\u{FFFF}g\u{1F980}\u{7F}\u{9B}é") == "abc\td\nefg\u{1F980}é")
        #expect(XMLText.escaped(#"]]> & <x a="1">"#) == "]]&gt; &amp; &lt;x a=&quot;1&quot;&gt;")
        #expect(FeedExportWriter.tag("f/a b/c") == "tag:feedcli,2026:f/a%20b%2Fc")
    }
}
