import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedReactor
@testable import FeedStore
@testable import FeedTerminal

/// `$BROWSER` as other Unix tools read it: a colon-separated list of command
/// lines, `%s` for the URL. Before, `BROWSER="firefox --new-tab"` looked for a program of that
/// whole name and failed (78).
@Suite("$BROWSER", .timeLimit(.minutes(2)))
struct BrowserTests {
    @Test func aCommandLineIsSplitIntoWords() {
        #expect(Launcher.words(in: "firefox --new-tab") == ["firefox", "--new-tab"])
        #expect(Launcher.words(in: #"  open -a "Google Chrome"  "#) == ["open", "-a", "Google Chrome"])
        #expect(Launcher.words(in: #"sh -c 'echo "%s"' x"#) == ["sh", "-c", #"echo "%s""#, "x"])
        #expect(Launcher.words(in: #"a\ b ''"#) == ["a b", ""])
        #expect(Launcher.words(in: "   ").isEmpty)
    }

    @Test func percentSStandsForTheURLElseItComesLast() {
        let url = "https://example.com/a?b=1"
        #expect(Launcher.substituting(url, into: ["firefox", "--new-tab"]) == ["firefox", "--new-tab", url])
        #expect(Launcher.substituting(url, into: ["w3m", "%s", "-x"]) == ["w3m", url, "-x"])
        #expect(Launcher.substituting(url, into: ["b", "--url=%s", "100%%"]) == ["b", "--url=" + url, "100%"])
        #expect(Launcher.substituting(url, into: ["b", "50%"]) == ["b", "50%", url], "a lone % is kept")
    }

    @Test func theFirstCommandThatStartsOpensTheEntry() async throws {
        let (session, server) = try await StoreSession.withOneEntryToOpen()
        defer { withExtendedLifetime(server) {} }
        let folder = temporaryStorePath("browser")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let browser = folder + "/my browser"
        let record = folder + "/arguments"
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record)'\n".write(toFile: browser, atomically: true, encoding: .utf8)
        chmod(browser, 0o755)
        let setting = "no-such-browser --x:'\(browser)' --new-tab"
        let run = try await Feedcli.run(
            Feedcli.onStore(session.state, ["open", "a", "--feed", "l"]), environment: ["BROWSER": setting])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "--new-tab\nhttps://example.com/a\n")
        let none = try await Feedcli.run(
            Feedcli.onStore(session.state, ["open", "a", "--feed", "l"]), environment: ["BROWSER": "nope1:nope2 %s"])
        #expect(none.status == 78 && none.stderr.contains("nope2"), "\(none.stderr)")
    }
}

/// `open` says what it refuses and why: a feed's `javascript:` link, or one
/// that a browser would read as an option, is never handed to a browser.
@Suite("open refuses links that are not web addresses", .timeLimit(.minutes(2)))
struct OpenRefusalTests {
    @Test(arguments: [
        ("javascript:alert(document.cookie)", "will not open javascript:alert(document.cookie)"),
        ("--help", "will not open --help"),
    ])
    func aLinkThatIsNotAWebAddressIsRefusedNamed(link: String, says: String) async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: #"[{"id":"a","html_url":"\#(link)"}]"#)
        }
        let session = StoreSession()
        try await session.add("l", server.baseURL + "/l", kind: "linked")
        #expect(try await session.feedcli("sync", "l").status == 0)
        let open = try await Feedcli.run(
            Feedcli.onStore(session.state, ["open", "a", "--feed", "l"]), environment: ["BROWSER": "/bin/false"])
        #expect(open.status == 66, "\(open.stderr)")
        #expect(open.stderr.contains(says) && open.stderr.contains("is not an http or https URL"), "\(open.stderr)")
    }
}
