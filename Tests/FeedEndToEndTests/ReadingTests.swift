import FeedCore
import FeedModel
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Read state a person can steer, short handles, and a CLI that follows its ecosystem,
/// end to end through the binary.
@Suite("Reading: read state, handles, the CLI surface", .serialized, .timeLimit(.minutes(3)))
struct ReadingTests {
    let session = StoreSession()
    let first: PagedServer
    let second: PagedServer

    init() async throws {
        first = try PagedServer(kind: .linked, count: 3, pageSize: 10)
        second = try PagedServer(kind: .jsonfeed, count: 2, pageSize: 10)
        try await session.add("a", first.url, kind: "linked")
        try await session.add("b", second.url, kind: "jsonfeed")
    }

    func unread(_ feed: String) async throws -> [String] {
        await JSONLines.ids(try session.feedcli("list", feed, "--unread", "--jsonl").stdout)
    }

    /// `show` gives one entry (an id in two feeds is refused, naming
    /// them, as `read` refuses it), `feeds set --kind` names the way to change a kind, and `next`
    /// with nothing unread says so on a terminal, never to cron.
    @Test func anIdInTwoFeedsIsRefusedByShowNamingThem() async throws {
        #expect(try await session.feedcli("sync", "a", "b").status == 0)
        let shown = try await session.feedcli("show", "1", "--json")
        #expect(shown.status == 64, "\(shown.stdout)")
        #expect(shown.stderr.contains("entry 1 is in 2 feeds (a, b)"), "\(shown.stderr)")
        let one = try await session.feedcli("show", "1", "--feed", "b", "--json")
        #expect(one.status == 0 && (one.json as? [String: Any])?["feed"] as? String == "b", "one object: \(one.stdout)")
    }

    /// `list` and `status` take several feeds: oldest first by publication across
    /// them (b's entries were published on 1 November; a's have no date, so their fetch time
    /// counts: today), one status line each; an unknown one is 66.
    @Test func listAndStatusTakeSeveralFeeds() async throws {
        #expect(try await session.feedcli("sync", "a", "b").status == 0)
        let listed = try await session.feedcli("list", "a", "b", "--jsonl")
        #expect(
            JSONLines.objects(listed.stdout).map { "\($0["feed"] ?? "")/\($0["id"] ?? "")" } == [
                "b/1", "b/2", "a/1", "a/2", "a/3",
            ],
            "\(listed.stdout)")
        #expect(try await session.feedcli("list", "--jsonl").stdout == listed.stdout, "all feeds: the same one order")
        let status = try await session.feedcli("status", "a", "b", "--json")
        #expect((status.json as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["a", "b"])
        #expect(try await session.feedcli("list", "a", "nope").status == 66)
    }

    @Test func feedsSetNamesTheWayToChangeAKind() async throws {
        let run = try await session.feedcli("feeds", "set", "a", "--kind", "json")
        #expect(run.status == 64)
        #expect(run.stderr.contains("feeds add a URL --kind KIND --replace"), "\(run.stderr)")
    }

    @Test func nothingUnreadIsSaidOnATerminalOnly() async throws {
        #expect(try await session.feedcli("sync", "a").status == 0)
        #expect(try await session.feedcli("read", "--all", "a").status == 0)
        let piped = try await session.feedcli("next", "a")
        #expect(piped.status == 1 && piped.stderr.isEmpty, "cron stays silent: \(piped.stderr)")
        // `script` gives feedcli a pseudo-terminal; what it prints there comes back on stdout.
        let terminal = try await Feedcli.shell(
            #"script -qec "$FEEDCLI next a --state $S" /dev/null"#, environment: ["S": session.state])
        #expect(terminal.stdout.contains("feedcli: nothing unread"), "\(terminal.stdout)")
    }

    @Test func plainOutputShowsHandlesThatCommandsAccept() async throws {
        let synced = try await session.feedcli("sync", "a")
        #expect(synced.stdout == "* @1 a: post 1\n* @2 a: post 2\n* @3 a: post 3\n")
        #expect(try await session.feedcli("show", "@2").stdout.hasPrefix("[@2 a] post 2"))
        #expect(try await session.feedcli("read", "@1", "@3").status == 0)
        #expect(try await unread("a") == ["2"])
        #expect(try await session.feedcli("unread", "@1").status == 0)
        #expect(try await unread("a") == ["1", "2"])
        #expect(try await session.feedcli("list", "a").stdout == "* @1 a: post 1\n* @2 a: post 2\n  @3 a: post 3\n")
    }

    @Test func readAndUnreadByIdInOneTransaction() async throws {
        _ = try await session.feedcli("sync")
        #expect(try await session.feedcli("read", "1", "2", "--feed", "a").status == 0)
        #expect(try await unread("a") == ["3"])
        let missing = try await session.feedcli("read", "3", "nope", "--feed", "a")
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no entry nope in feed a"))
        #expect(try await unread("a") == ["3"], "nothing changed")
        #expect(try await session.feedcli("unread", "1", "--feed", "a").status == 0)
        #expect(
            try await session.feedcli("next", "a", "--json").json.map { ($0 as? [String: Any])?["id"] as? String }
                == "1",
            "an entry marked unread comes again in its order")
        #expect(try await session.feedcli("read", "--all", "b").status == 0)
        let (unreadB, unreadA) = (try await unread("b"), try await unread("a"))
        #expect(unreadB.isEmpty && unreadA == ["3"])
        #expect(try await session.feedcli("read", "--all").status == 0)
        #expect(try await unread("a").isEmpty)
        #expect(try await session.feedcli("read", "--all", "nope").status == 66)
        #expect(try await session.feedcli("read").status == 64, "nothing named")
    }

    @Test func nextAllDeliversTheOldestUnreadOfAllFeeds() async throws {
        #expect(try await session.feedcli("feeds", "rm", "nope").status == 66, "rm is remove's alias")
        let fetched = try await session.feedcli("next", "--all", "--json")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(
            fetched.json.map { ($0 as? [String: Any])?["feed"] as? String } != nil, "nothing unread: every feed synced")
        var delivered: [String] = []
        while true {
            let run = try await session.feedcli("next", "--all", "--json")
            guard run.status == 0, let entry = run.json as? [String: Any] else {
                #expect(run.status == 1)
                break
            }
            delivered.append("\(entry["feed"] ?? "")/\(entry["id"] ?? "")")
        }
        #expect(delivered.count == 4, "five entries in all, one delivered by the first run")
        #expect(
            first.requests.count == 2 && second.requests.count == 2,
            "fetched at the start and once more at the end (nothing unread), never while something was unread")
    }

    @Test func optionsBelongToTheCommandsThatUseThem() async throws {
        _ = try await session.feedcli("sync", "a")
        let forced = try await Feedcli.run(["list", "--force", "--state", session.state])
        #expect(forced.status == 64 && forced.stderr.contains("--force"))
        #expect(!(try await Feedcli.run(["list", "--help"])).stdout.contains("--timeout"))
        #expect((try await Feedcli.run(["sync", "--help"])).stdout.contains("--timeout"))
        #expect(try await session.feedcli("list", "a", "-n", "1", "-u").stdout == "* @3 a: post 3\n")
        #expect(try await session.feedcli("sync", "b", "-q", "-v").status == 0)
        let both = try await session.feedcli("list", "--json", "--jsonl")
        #expect(both.status == 64)
    }

    @Test func aMistypedCommandIsAUsageErrorThatNamesTheNearestOne() async throws {
        for (arguments, suggestion) in [
            (["nxt"], "did you mean `next`?"), (["help", "nxt"], "did you mean `next`?"),
            (["feeds", "rmove", "x"], "did you mean `remove`?"), (["snyc"], "did you mean `sync`?"),
        ] {
            let run = try await Feedcli.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(suggestion), "\(arguments): \(run.stderr)")
        }
        #expect(try await Feedcli.run(["help", "next"]).status == 0)
    }

    @Test func feedsAddWithoutAKindAsksTheURL() async throws {
        let posts = try PostsServer(available: 2)
        let cases: [(String, String, String)] = [
            ("fa", first.url, "linked"), ("fb", second.url, "jsonfeed"),
            ("fc", posts.url, "indexed"),
        ]
        let graph = try PagedServer(kind: .graph, count: 2)
        for (name, url, kind) in cases + [("fd", graph.url, "graph")] {
            let run = try await session.feedcli("feeds", "add", name, url)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect((try await session.status(name))?["kind"] as? String == kind, "\(name)")
        }
        let html = try LoopbackServer { _, connection in connection.respond(200, text: "<html>hello</html>") }
        let unknown = try await session.feedcli("feeds", "add", "fe", html.baseURL + "/page")
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("cannot tell what kind of feed") && unknown.stderr.contains("give --kind"))
        let before = html.requests.count
        #expect(try await session.feedcli("feeds", "add", "ff", html.baseURL + "/page", "--kind", "linked").status == 0)
        #expect(html.requests.count == before, "with --kind, no request")
        let wrong = try await session.feedcli("feeds", "add", "fb", posts.url)
        #expect(wrong.status == 64, "an existing name is refused before any request")
    }

    @Test func theProgressLineOnATerminal() async throws {
        let posts = try PostsServer(available: 3)
        try await session.add("p", posts.url, kind: "indexed")
        func onTerminal(_ command: String, environment: String) async throws -> FeedcliRun {
            // `script` gives feedcli a pseudo-terminal; what it prints there comes back on stdout.
            try await Feedcli.shell(
                #"script -qec "\#(environment) $FEEDCLI \#(command) --state $S" /dev/null"#,
                environment: ["S": session.state])
        }
        let shown = try await onTerminal("sync p", environment: "TERM=xterm COLUMNS=40")
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("feedcli: p, index 1:"), "\(shown.stdout)")
        let progress = shown.stdout.components(separatedBy: "\u{1B}[K")
            .map { $0.prefix { $0 != "\r" && $0 != "\n" } }.filter { $0.hasPrefix("feedcli: p,") }
        #expect(!progress.isEmpty && progress.allSatisfy { $0.count <= 39 }, "fits the terminal's width: \(progress)")
        // Every entry starts its own row: right after a newline or after the progress line's erase.
        let scalars = Array(shown.stdout.unicodeScalars)
        let starts = scalars.indices.filter {
            $0 > 0 && $0 + 2 < scalars.count && String(String.UnicodeScalarView(scalars[$0...($0 + 2)])) == "* @"
        }
        #expect(
            starts.count == 3 && starts.allSatisfy { scalars[$0 - 1] == "\n" || scalars[$0 - 1] == "K" },
            "never after the progress text: \(shown.stdout.debugDescription)")
        let both = try await onTerminal("sync p a", environment: "TERM=xterm")
        #expect(both.stdout.contains("feedcli: 2 feeds, 3 new entries"), "one summary line after a multi-feed sync")
        let quiet = try await onTerminal("sync p a", environment: "TERM=xterm")
        #expect(!quiet.stdout.contains("feeds,"), "nothing new: nothing at all, not even the summary")
        posts.setAvailable(4)
        let dumb = try await onTerminal("sync p", environment: "TERM=dumb")
        #expect(dumb.stdout.contains("* @"), "the entry is printed")
        #expect(!dumb.stdout.contains("feedcli: p,"), "no progress line on a dumb terminal")
    }

    @Test func feedsListSaysHowToAddAFeed() async throws {
        let bare = StoreSession()
        #expect(try await bare.feedcli("feeds", "list").stdout.contains("Add one: feedcli feeds add NAME URL"))
        #expect(await !(try bare.feedcli("feeds", "list", "--json")).stdout.contains("Add one"))
        #expect(!(try await session.feedcli("feeds", "list")).stdout.contains("Add one"))
    }

    @Test func openHandsTheEntrysAddressToTheBrowser() async throws {
        // JSON Feed items have no url here; give one a url through a linked feed.
        _ = try await session.feedcli("sync", "b")
        let linked = try LoopbackServer { _, connection in
            connection.respond(
                200,
                text:
                    #"[{"id":1,"title":"t","html_url":"https://example.org/a?b=1&c"},{"id":2,"url":"file:///etc/passwd"}]"#
            )
        }
        try await session.add("u", linked.baseURL + "/feed", kind: "linked")
        _ = try await session.feedcli("sync", "u")
        let folder = (session.state as NSString).deletingLastPathComponent
        let browser = folder + "/browser.sh"
        try "#!/bin/sh\nprintf '%s' \"$1\" > '\(folder)/opened'\n".write(
            toFile: browser, atomically: true, encoding: .utf8)
        chmod(browser, 0o755)
        let opened = try await Feedcli.run(
            Feedcli.onStore(session.state, ["open", "1", "--feed", "u"]), environment: ["BROWSER": browser])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(try String(contentsOfFile: folder + "/opened", encoding: .utf8) == "https://example.org/a?b=1&c")
        let noAddress = try await Feedcli.run(
            Feedcli.onStore(session.state, ["open", "2", "--feed", "u"]), environment: ["BROWSER": browser])
        #expect(noAddress.status == 66, "only http and https addresses are opened")
        let nothing = try await Feedcli.run(
            Feedcli.onStore(session.state, ["open", "1", "--feed", "u"]),
            environment: ["BROWSER": folder + "/no-such-browser"])
        #expect(nothing.status == 78)
        #expect(try await session.feedcli("open", "nope").status == 66)
    }

    @Test func everyMakesAPlainSyncSkipAFeedPolledRecently() async throws {
        #expect(try await session.feedcli("feeds", "set", "a", "--every", "2h").status == 0)
        #expect(try await session.feedcli("sync").status == 0)
        #expect(first.requests.count == 1 && second.requests.count == 1)
        #expect(try await session.feedcli("sync").status == 0)
        #expect(first.requests.count == 1, "a is not due for two hours")
        #expect(second.requests.count == 2, "b has no --every")
        #expect(try await session.feedcli("sync", "a").status == 0)
        #expect(first.requests.count == 2, "naming the feed fetches it anyway")
        #expect(try await session.feedcli("sync", "--force").status == 0)
        #expect(first.requests.count == 3, "and so does --force")
        let status = try #require(try await session.status("a"))
        #expect(status["every_seconds"] as? Int == 7200)
        #expect((status["next_due"] as? String).flatMap(Timestamp.parse).map { $0.timeIntervalSinceNow > 7000 } == true)
        #expect(try await session.feedcli("feeds", "list").stdout.contains("every 2h, next due "))
        let due = try await session.feedcli("status", "a").stdout
        #expect(due.contains("  in 1h59m\n") || due.contains("  in 2h\n"), "to the minute: \(due)")
        #expect(try await session.feedcli("feeds", "set", "a", "--every", "never").status == 0)
        #expect(try await session.status("a")?["every_seconds"] as? Int == 0, "never is not unset (it was)")
        #expect(try await session.feedcli("feeds", "set", "a", "--every", "").status == 0)
        #expect(try await session.status("a")?["every_seconds"] is NSNull)
        #expect(try await session.feedcli("feeds", "set", "a", "--every", "soon").status == 64)
        #expect(
            try await session.feedcli("feeds", "add", "c", first.url, "--kind", "linked", "--every", "30m").status == 0)
        #expect(try await session.status("c")?["every_seconds"] as? Int == 1800)
    }

    @Test func completionsOfferTheStoresFeedNames() async throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try await Feedcli.run(["--generate-completion-script", shell])
            #expect(script.status == 0 && script.stdout.contains("feedcli"), "\(shell)")
        }
        try await session.add("fireball", first.url, kind: "linked")
        let offered = try await Feedcli.run([
            "---completion", "next", "--", "positional@0", "2", "1", "feedcli", "next", "f",
            "--state", session.state,
        ])
        #expect(offered.stdout.split(separator: "\n") == ["fireball"])
        let missing = temporaryStorePath()
        let none = try await Feedcli.run([
            "---completion", "list", "--", "positional@0", "2", "0", "feedcli", "list", "", "--state", missing,
        ])
        #expect(
            none.stdout.isEmpty && !FileManager.default.fileExists(atPath: missing), "no store is created to complete")
    }
}
