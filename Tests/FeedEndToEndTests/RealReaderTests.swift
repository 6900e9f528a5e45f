import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// feedcli's export and OPML read by software nobody here wrote: Python's
/// feedparser, newsboat and sfeed, as Debian 12 ships them. `scripts/test.sh` installs them; a
/// test runs only where its reader is installed (test.sh says when one cannot be).
@Suite("Real readers take the export", .serialized, .timeLimit(.minutes(3)))
struct RealReaderTests {
    static func installed(_ program: String) -> Bool {
        ["/usr/bin/", "/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + program) }
    }

    /// Debian's Python, where its `python3-feedparser` is installed, rather than the first
    /// `python3` on the PATH (a pyenv one, on a machine with pyenv, which has no feedparser:
    /// the test was skipped there without anyone noticing).
    static let python = installed("python3") ? "/usr/bin/python3" : "python3"

    static var hasFeedparser: Bool {
        get async { (try? await Feedcli.shell("\(python) -c 'import feedparser'").status) == 0 }
    }

    /// A store with a linked feed whose entries are the cases that broke readers: HTML sent as
    /// HTML (Mastodon's `content`), `<p>` in plain text, no title, a relative link, a
    /// `javascript:` link, no text and no link; and the Atom export of it in a file.
    func exported() async throws -> (session: StoreSession, atom: String, count: Int) {
        let items = #"""
            [{"id":"6","content":"<p>Some <b>HTML</b> &amp; more</p>","html_url":"https://e.example/6","created_at":"2026-11-06T10:00:00Z"},
             {"id":"5","title":"Plain","body":"a <p> in plain text","html_url":"/relative/5","created_at":"2026-11-05T10:00:00Z"},
             {"id":"4","title":"Scripted","body":"text","html_url":"javascript:alert(1)","created_at":"2026-11-04T10:00:00Z"},
             {"id":"3","title":"Bare","created_at":"2026-11-03T10:00:00Z"},
             {"id":"2","body":"untitled entry's text","html_url":"https://e.example/2","created_at":"2026-11-02T10:00:00Z"}]
            """#
        let server = try LoopbackServer { _, connection in connection.respond(200, text: items) }
        let session = StoreSession()
        try await session.add("m", server.baseURL + "/items", kind: "linked")
        #expect(try await session.feedcli("sync", "m").status == 0)
        let atom = session.state + ".atom.xml"
        let run = try await Feedcli.shell(
            #""$FEEDCLI" export m --format atom --self https://me.example/m.xml --state "$S" > "$A""#,
            environment: ["S": session.state, "A": atom])
        #expect(run.status == 0, "\(run.stderr)")
        return (session, atom, 5)
    }

    @Test(.enabled { await hasFeedparser }) func feedparserReadsTheAtomExportWithoutComplaint() async throws {
        let (_, atom, count) = try await exported()
        let check = try await Feedcli.shell(
            #"""
            "$PY" -c '
            import feedparser, json, sys
            d = feedparser.parse(sys.argv[1])
            print(json.dumps({"bozo": d.bozo, "version": d.version, "entries": [
                {"title": e.get("title"), "link": e.get("link"), "type": (e.get("content") or [{}])[0].get("type")} for e in d.entries]}))' "$A"
            """#, environment: ["A": atom, "PY": Self.python])
        #expect(check.status == 0, "\(check.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
        #expect(
            result["bozo"] as? Bool == false && result["version"] as? String == "atom10",
            "well-formed Atom 1.0: \(check.stdout)")
        let entries = try #require(result["entries"] as? [[String: Any]])
        #expect(entries.count == count)
        #expect(entries.allSatisfy { !(($0["title"] as? String) ?? "").isEmpty }, "every entry has a title")
        #expect(
            entries[0]["type"] as? String == "text/html" && entries[1]["type"] as? String == "text/plain", "\(entries)")
        #expect(
            entries.contains { ($0["link"] as? String)?.hasSuffix("/relative/5") == true }, "the relative link resolved"
        )
        #expect(!check.stdout.contains("javascript:"))
    }

    @Test(.enabled(if: installed("newsboat"))) func newsboatReadsTheExportAndImportsOnlyWhatItCanRead() async throws {
        let (session, atom, count) = try await exported()
        let home = session.state + ".newsboat"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let read = try await Feedcli.shell(
            #"""
            cd "$H" && printf 'file://%s\n' "$A" > urls && : > config
            newsboat -u urls -c cache.db -C config -x reload print-unread
            """#, environment: ["H": home, "A": atom, "HOME": home])
        #expect(read.status == 0, "\(read.stdout)\(read.stderr)")
        #expect(read.stdout.contains("\(count) unread articles"), "\(read.stdout)\(read.stderr)")

        // OPML: newsboat subscribes to what it can read (a JSON Feed's type="rss"), not to a
        // linked or graph feed it would fail on at every reload.
        #expect(
            try await session.run(["feeds", "add", "jf", "http://127.0.0.1:9/feed.json", "--kind", "jsonfeed"]).status
                == 0)
        let imported = try await Feedcli.shell(
            #"""
            cd "$H" && : > urls && "$FEEDCLI" feeds export --state "$S" > subscriptions.opml && newsboat -u urls -C config -i subscriptions.opml >/dev/null && cat urls
            """#, environment: ["H": home, "S": session.state, "HOME": home])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.contains("http://127.0.0.1:9/feed.json") && !imported.stdout.contains("/items"),
            "\(imported.stdout)")
    }

    /// Debian 12's newsboat reads no JSON Feed: `feeds export --newsboat` gives it `exec:` lines
    /// that read each feed from the store as Atom, which it reads (every entry, none twice).
    @Test(.enabled(if: installed("newsboat"))) func newsboatReadsEveryFeedThroughItsExecLines() async throws {
        let (session, _, count) = try await exported()
        let home = session.state + ".newsboat-exec"
        try FileManager.default.createDirectory(atPath: home + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: home + "/bin/feedcli", withDestinationPath: Feedcli.binary)
        let read = try await Feedcli.shell(
            #"""
            cd "$H" && "$FEEDCLI" feeds export --newsboat --state "$S" > urls && : > config && cat urls >&2
            PATH="$H/bin:$PATH" newsboat -u urls -c cache.db -C config -x reload print-unread
            """#, environment: ["H": home, "S": session.state, "HOME": home])
        #expect(read.status == 0, "\(read.stdout)\(read.stderr)")
        #expect(read.stderr.hasPrefix(#""exec:feedcli export 'm' --format atom --state '"#), "\(read.stderr)")
        #expect(read.stdout.contains("\(count) unread articles"), "\(read.stdout)\(read.stderr)")
    }

    @Test(.enabled(if: installed("sfeed"))) func sfeedReadsEveryEntryOfTheExport() async throws {
        let (_, atom, count) = try await exported()
        let parsed = try await Feedcli.shell(#"sfeed < "$A""#, environment: ["A": atom])
        #expect(parsed.status == 0, "\(parsed.stderr)")
        let rows = parsed.stdout.split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
        #expect(rows.count == count, "\(parsed.stdout)")
        #expect(rows.allSatisfy { $0.count > 2 && !$0[1].isEmpty }, "every entry has a title: \(parsed.stdout)")
        #expect(!parsed.stdout.contains("javascript:"))
    }
}
