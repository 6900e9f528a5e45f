import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// Subscriptions in and out as OPML 2.0: `feeds export --opml` and `feeds
/// import FILE`, the kind kept in an attribute of its own so that a round trip loses nothing.
@Suite("OPML import and export", .timeLimit(.minutes(2)))
struct OPMLTests {
    @Test func theReaderTakesFeedOutlinesFromAnyDepth() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE opml>
            <!-- exported by another reader -->
            <opml version="2.0"><head><title>Subscriptions &amp; more</title></head>
            <body>
              <outline text="Tech" title="Tech">
                <outline type="rss" text="Daring Fireball" xmlUrl="https://daringfireball.net/feeds/json?a=1&amp;b=2"/>
                <outline type='rss' text='Ann&apos;s &#233;t&#xE9;' xmlUrl='https://example.com/ann.json'
                    htmlUrl="https://example.com/"></outline>
              </outline>
              <outline text="no url"/>
              <![CDATA[ <outline xmlUrl="https://ignored/"/> ]]>
            </body></opml>
            """
        let outlines = try OPML.feedOutlines(in: text)
        #expect(outlines.count == 2)
        #expect(outlines[0]["xmlUrl"] == "https://daringfireball.net/feeds/json?a=1&b=2")
        #expect(outlines[1]["text"] == "Ann's été")
        #expect(OPML.feedName(from: "Daring Fireball") == "Daring-Fireball")
        #expect(OPML.feedName(from: "Ann's été!") == "Ann-s-été", "letters of every script")
        #expect(OPML.feedName(from: "fboës - Der Blog") == "fboës-Der-Blog")
        #expect(OPML.feedName(from: "日本語のブログ") == "日本語のブログ")
        #expect(OPML.feedName(from: "…") == nil)
    }

    @Test(arguments: [
        ("<html><body/></html>", "its first element is <html>"), ("plain text", "it has no <opml> element"),
        (#"<opml><body><outline xmlUrl=https://x/></body></opml>"#, "is not quoted"),
        (#"<opml><body><outline xmlUrl="https://x/"#, "ends inside an attribute value"),
        ("<opml><!-- never closed", "ends inside a comment"),
    ])
    func whatIsNotOPMLSaysWhy(text: String, reason: String) {
        #expect { try OPML.feedOutlines(in: text) } throws: { ($0 as? OPMLError)?.reason.contains(reason) == true }
    }

    /// newsboat's own `urls` file is read as it is (it was refused: "it has no <opml> element at
    /// byte 358"): its URLs, a `~` tag as the feed's name, its query and exec lines left out.
    @Test func aNewsboatURLsFileIsReadAsItIs() {
        let urls = """
            # feeds
            https://daringfireball.net/feeds/json "tech" "~Daring Fireball"
              http://127.0.0.1:8089/feed.json
            "query:Unread:unread = \"yes\""
            exec:~/bin/feed.sh "~Script"
            """
        #expect(
            NewsboatURLs.outlines(in: urls) == [
                ["xmlUrl": "https://daringfireball.net/feeds/json", "title": "Daring Fireball"],
                ["xmlUrl": "http://127.0.0.1:8089/feed.json"],
            ])
        #expect(NewsboatURLs.outlines(in: "plain text") == nil)
        #expect(NewsboatURLs.outlines(in: "# nothing but a comment\n") == nil)
    }

    /// A feed the file names only by its URL is named by its own title, as detection finds it
    /// (it was named `127.0.0.1-apis-…` after its URL).
    @Test func aNewsboatURLsFileIsImportedAndBareURLsTakeTheFeedsTitle() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200, text: #"{"version":"https://jsonfeed.org/version/1.1","title":"Hacker News","items":[{"id":"1"}]}"#
            )
        }
        let session = StoreSession()
        let folder = TestScratch.folder("newsboat-urls").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/urls"
        try "\(server.baseURL)/a.json \"~Daring Fireball\"\n# a comment\n\(server.baseURL)/apis/hn.json\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let run = try await session.feedcli("feeds", "import", file)
        #expect(run.status == 0, "\(run.stderr)")
        let listed = try await session.feedcli("feeds", "list", "--json").stdout
        #expect(listed.contains(#""name":"Daring-Fireball""#) && listed.contains(#""name":"Hacker-News""#), "\(listed)")
        let refused = try await session.feedcli("feeds", "import", "/dev/null")
        #expect(refused.status == 65 && refused.stderr.contains("nor a newsboat urls file"), "\(refused.stderr)")
    }

    @Test func aRoundTripKeepsNameKindTokenEveryAndExpressions() async throws {
        let session = StoreSession()
        #expect(try await session.feedcli("feeds", "remove", "posts").status == 0)
        #expect(
            try await session.run([
                "feeds", "add", "g", "http://127.0.0.1:9/g?a=1&b=<2>", "--kind", "graph", "--every", "30m",
                "--token-env", "G_TOKEN",
            ]).status == 0)
        #expect(
            try await session.run([
                "feeds", "add", "api", "http://127.0.0.1:9/api", "--items", ".results[]", "--id", ".key",
                "--title", #".name + " \"quoted\"""#, "--filter", ".score > 1",
            ]).status == 0)
        #expect(
            try await session.run([
                "feeds", "add", "off", "http://127.0.0.1:9/off", "--kind", "linked", "--every", "never",
            ]).status == 0)
        let export = try await session.feedcli("feeds", "export", "--opml")
        #expect(export.status == 0 && export.stdout.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        let parsed = try await Feedcli.shell(
            #"python3 -c 'import sys, xml.etree.ElementTree as E; r = E.fromstring(sys.stdin.read()); print(r.tag, r.get("version"), len(r.findall(".//outline")))'"#
                + " <<'OPML'\n" + export.stdout + "OPML\n")
        #expect(parsed.stdout == "opml 2.0 3\n", "\(parsed.stdout)\(parsed.stderr)")

        let file = session.state + ".opml"
        try export.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let other = StoreSession()
        #expect(try await other.feedcli("feeds", "remove", "posts").status == 0)
        let imported = try await other.feedcli("feeds", "import", file)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("feedcli: imported 3 of 3 feeds from \(file)"))
        // A file never decides which secret goes to which host: the token variable is named, not taken.
        #expect(imported.stderr.contains("sends no token: the file names $"), "\(imported.stderr)")
        let keys = ["name", "kind", "url", "every_seconds", "expressions"]
        let before = try await session.feedcli("feeds", "list", "--json").json as? [[String: Any]] ?? []
        let after = try await other.feedcli("feeds", "list", "--json").json as? [[String: Any]] ?? []
        #expect(before.count == 3 && after.count == 3)
        for (one, two) in zip(before, after) {
            for key in keys {
                let values = try [one, two].map {
                    try JSONSerialization.data(withJSONObject: [$0[key] ?? (NSNull() as Any)], options: .sortedKeys)
                }
                #expect(values[0] == values[1], "\(key) of \(one["name"] ?? "")")
            }
        }
        let again = try await other.feedcli("feeds", "import", file)
        #expect(
            again.status == 0 && again.stderr.contains("imported 0 of 3"), "what is there is skipped: \(again.stderr)")
    }

    /// What other readers and the W3C validator need of the export:
    /// feedcli's attributes in its own namespace (a namespace-aware parser reads them), `type="rss"`
    /// only for a JSON Feed; and an export imported into an empty store gives back every feed:
    /// two feeds on one URL with different filters stay two, a name in another script stays.
    @Test func theExportIsValidElsewhereAndImportsBackWhole() async throws {
        let session = StoreSession()
        #expect(
            try await session.run(["feeds", "add", "j", "http://127.0.0.1:9/feed.json", "--kind", "jsonfeed"]).status
                == 0)
        #expect(
            try await session.run([
                "feeds", "add", "golang", "http://127.0.0.1:9/g", "--kind", "graph", "--filter", ".a",
            ]).status == 0)
        #expect(
            try await session.run([
                "feeds", "add", "golang-b", "http://127.0.0.1:9/g", "--kind", "graph", "--filter", ".b",
            ]).status == 0)
        #expect(
            try await session.run(["feeds", "add", "日本語のブログ", "http://127.0.0.1:9/jp", "--kind", "linked"]).status == 0)
        let export = try await session.feedcli("feeds", "export", "--opml")
        #expect(export.status == 0)
        let parsed = try await Feedcli.shell(
            #"""
            python3 -c '
            import sys, xml.etree.ElementTree as E
            root = E.fromstring(sys.stdin.read())
            for o in root.iter("outline"):
                print(o.get("type"), o.get("{tag:feedcli,2026:opml}name"), o.get("{tag:feedcli,2026:opml}kind"))'
            """# + " <<'OPML'\n" + export.stdout + "OPML\n")
        #expect(parsed.status == 0, "a namespace-aware parser reads it: \(parsed.stderr)")
        #expect(
            parsed.stdout == "feedcli golang graph\nfeedcli golang-b graph\nrss j jsonfeed\nfeedcli 日本語のブログ linked\n",
            "\(parsed.stdout)")

        let file = session.state + ".opml"
        try export.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let other = StoreSession()
        let imported = try await other.feedcli("feeds", "import", file)
        #expect(imported.status == 0 && imported.stderr.contains("imported 4 of 4"), "\(imported.stderr)")
        let names = await (try other.feedcli("feeds", "list", "--json").json as? [[String: Any]] ?? []).compactMap {
            $0["name"] as? String
        }
        #expect(
            names == ["golang", "golang-b", "j", "日本語のブログ"],
            "the unused built-in posts retired, every feed back: \(names)")

        // A file of feedcli's first 0.2.0 builds (attributes without a namespace) reads as before.
        try
            #"<opml version="2.0"><body><outline type="rss" text="x" xmlUrl="http://127.0.0.1:9/old" feedcliName="old" feedcliKind="linked"/></body></opml>"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await other.feedcli("feeds", "import", file).status == 0)
        #expect(try await other.status("old")?["kind"] as? String == "linked")
    }

    @Test func anotherReadersExportIsAskedWhatEachFeedIs() async throws {
        let server = try LoopbackServer { request, connection in
            switch request.path {
            case "/feed.json":
                connection.respond(
                    200, text: #"{"version":"https://jsonfeed.org/version/1.1","title":"T","items":[{"id":"1"}]}"#)
            default:
                connection.respond(
                    200, headers: [("Content-Type", "application/rss+xml")],
                    text: "<rss version=\"2.0\"><channel/></rss>")
            }
        }
        let session = StoreSession()
        let file = temporaryStorePath("subscriptions.opml")
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try """
        <?xml version="1.0"?>
        <opml version="1.0"><body>
          <outline text="My JSON feed" type="rss" xmlUrl="\(server.baseURL)/feed.json"/>
          <outline text="An RSS feed" type="rss" xmlUrl="\(server.baseURL)/rss.xml"/>
        </body></opml>
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await session.feedcli("feeds", "import", file)
        #expect(run.status == 65, "an RSS feed is not one feedcli reads: \(run.stderr)")
        #expect(
            run.stderr.contains("feedcli: added My-JSON-feed: jsonfeed 'T', 1 entry on the first page"), "\(run.stderr)"
        )
        #expect(
            run.stderr.contains("skipped An-RSS-feed: bad data: RSS/Atom: feedcli reads JSON feeds"), "\(run.stderr)")
        #expect(!server.requests.contains { $0.path == "/rss.xml/1" }, "the one request told it (no URL/1)")
        #expect(run.stderr.contains("imported 1 of 2 feeds"))
        #expect(try await session.status("My-JSON-feed")?["kind"] as? String == "jsonfeed")
    }

    /// newsboat writes `title=""` and no `text`: the name comes from the next
    /// attribute that makes one, else the feed's own title, else the URL's host and path; white space around a URL is
    /// trimmed; a file read through a pipe (`<(cat f.opml)`) imports as a file does.
    @Test func newsboatsExportImportsThroughAPipe() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200, text: #"{"version":"https://jsonfeed.org/version/1.1","title":"T","items":[{"id":"1"}]}"#)
        }
        let session = StoreSession()
        let opml = session.state + ".opml"
        try """
        <?xml version="1.0"?>
        <opml version="1.0"><head><title>newsboat - Exported Feeds</title></head><body>
        <outline type="rss" xmlUrl=" \(server.baseURL)/blog/feed.json " htmlUrl="" title=""/>
        <outline type="rss" xmlUrl="\(server.baseURL)/other.json" htmlUrl="" title="" text="Other Blog"/>
        </body></opml>
        """.data(using: .utf8).map { try writeFile(opml, $0) }
        let run = try await Feedcli.shell(
            #""$FEEDCLI" feeds import <(cat "$F") --state "$S""#, environment: ["F": opml, "S": session.state])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("imported 2 of 2 feeds"), "\(run.stderr)")
        let names = await (try session.feedcli("feeds", "list", "--json").json as? [[String: Any]] ?? []).compactMap {
            $0["name"] as? String
        }
        #expect(names.contains("T") && names.contains("Other-Blog"), "the feed's own title, then the file's: \(names)")
    }

    @Test func aFileThatIsNotOPMLRegistersNothing() async throws {
        let session = StoreSession()
        let run = try await Feedcli.shell(
            #"echo '{"not":"opml"}' | "$FEEDCLI" feeds import - --state "$S""#, environment: ["S": session.state])
        #expect(run.status == 65 && run.stderr.contains("- is not an OPML file feedcli can read"), "\(run.stderr)")
        let plain = try await session.feedcli("feeds", "export")
        #expect(
            plain.status == 0 && plain.stdout.contains("<opml version=\"2.0\""),
            "--opml is the default: \(plain.stderr)")
    }

    /// A file without end is refused once it passes any subscription list's size (it read
    /// `/dev/zero` until the allocation trapped: 132).
    @Test func aFileWithoutEndIsRefusedAtItsBound() async throws {
        let session = StoreSession()
        let run = try await session.feedcli("feeds", "import", "/dev/zero")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("/dev/zero is larger than 16 MiB"), "\(run.stderr)")
        #expect(
            try await session.feedcli("feeds", "list").stdout.contains("No feeds of your own yet"), "nothing registered"
        )
    }
}
