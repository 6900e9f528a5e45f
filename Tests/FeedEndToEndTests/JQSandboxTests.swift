import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedBase
@testable import FeedCore
@testable import FeedJQ
@testable import FeedReactor
@testable import FeedStore

/// Expressions from anywhere, safely: jq runs in a sandboxed worker process, so an
/// expression that crashes jq, runs away or eats memory fails only its own feed, sees no
/// environment and reads no file; what jq 1.6 cannot read or tell apart is handled by feedcli.
/// Each test runs the built `feedcli`, so a signal death would show as a status of 128 or more.
@Suite("jq runs sandboxed in a worker", .timeLimit(.minutes(3)))
struct JQSandboxTests {
    /// A page of three posts whose `t` is a number past what `todate` survives (1e17).
    static let page =
        #"{"posts":[{"id":1,"t":1e17,"title":"one"},{"id":2,"t":5,"title":"two"},{"id":3,"t":7,"title":"three"}]}"#

    static func server() throws -> LoopbackServer {
        try LoopbackServer { _, connection in connection.respond(200, text: page) }
    }

    static func add(_ session: StoreSession, _ name: String, _ url: String, _ options: [String]) async throws {
        let run = try await session.run(["feeds", "add", name, url, "--kind", "json", "--items", ".posts[]"] + options)
        if run.status != 0 { throw StoreSession.FeedAddFailed(stderr: run.stderr) }
    }

    /// A lull longer than a dispatch thread's idle life (about 5 s) between two pages: the
    /// worker that read page 1 waits idle, and page 2 is read by a live worker. Workers were
    /// started from dispatch threads and killed with them (`PR_SET_PDEATHSIG` is per thread),
    /// so page 2 failed with "jq crashed on it (SIGKILL)".
    @Test func aWorkerOutlivesALullBetweenPages() async throws {
        let server = try LoopbackServer { request, connection in
            if request.path.hasSuffix("page=2") {
                // The server's lull: this handler's own thread sleeps, as a slow API does.
                Thread.sleep(forTimeInterval: 7)
                return connection.respond(200, text: #"{"posts":[{"id":1,"title":"one"}]}"#)
            }
            connection.respond(
                200, text: #"{"posts":[{"id":3,"title":"three"},{"id":2,"title":"two"}],"next":"/p?page=2"}"#)
        }
        let session = StoreSession()
        try await Self.add(session, "slow", server.baseURL + "/p", ["--title", ".title", "--next-url", ".next"])
        let sync = try await session.feedcli("sync", "slow", "--jsonl")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(JSONLines.ids(sync.stdout) == ["1", "2", "3"], "\(sync.stderr)")
    }

    /// The worker keeps no privilege of feedcli's (run as root, it had every capability) and
    /// runs under a seccomp filter with no new privileges. Read from
    /// /proc while the worker waits for page 2.
    @Test func theWorkerHasNoPrivilegesAndAFilter() async throws {
        let gate = RequestGate()
        gate.hold(from: 2)
        let server = try LoopbackServer { request, connection in
            gate.arrive()
            if request.path.hasSuffix("page=2") {
                return connection.respond(200, text: #"{"posts":[{"id":1,"title":"one"}]}"#)
            }
            connection.respond(200, text: #"{"posts":[{"id":2,"title":"two"}],"next":"/p?page=2"}"#)
        }
        let session = StoreSession()
        try await Self.add(session, "held", server.baseURL + "/p", ["--title", ".title", "--next-url", ".next"])
        let run = try Feedcli.start(Feedcli.onStore(session.state, ["sync", "held", "--jsonl"]))
        #expect(await gate.waitForArrivals(2), "page 2 was asked for")
        let parent = String(run.process.processIdentifier)
        let workers = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            return status.contains("\nPPid:\t\(parent)\n") && command.starts(with: Data("feedcli-jq-worker\0".utf8))
        }
        gate.open()
        let statuses = workers.compactMap { try? String(contentsOfFile: "/proc/\($0)/status", encoding: .utf8) }
        #expect(!statuses.isEmpty, "a worker read page 1")
        for status in statuses {
            let fields = Dictionary(
                status.split(separator: "\n").compactMap { line -> (String, String)? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return parts.count == 2 ? (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces)) : nil
                }, uniquingKeysWith: { first, _ in first })
            #expect(fields["NoNewPrivs"] == "1", "\(status)")
            #expect(fields["Seccomp"] == "2", "filter mode: \(status)")
            #expect(fields["CapEff"] == "0000000000000000" && fields["CapPrm"] == "0000000000000000", "\(status)")
            #expect(
                fields["CapBnd"] == "0000000000000000" || getuid() != 0, "root's bounding set is emptied: \(status)")
        }
        let finished = await run.finish()
        #expect(finished.status == 0, "the confined worker still reads every page: \(finished.stderr)")
        #expect(JSONLines.ids(finished.stdout) == ["1", "2"], "\(finished.stderr)")
    }

    /// The headline case: a crashing, a runaway and a memory-eating feed beside healthy ones.
    @Test func aCrashARunawayAndAMemoryHogFailOnlyTheirOwnFeeds() async throws {
        let server = try Self.server()
        let session = StoreSession()
        #expect(try await session.feedcli("feeds", "remove", "posts").status == 0)
        let url = server.baseURL + "/p"
        try await Self.add(session, "crash", url, ["--published", ".t|todate"])
        try await Self.add(session, "runaway", url, ["--title", "first(range(1e15)|select(. < 0))"])
        try await Self.add(session, "hog", url, ["--title", "def f: [f, f]; f"])
        for healthy in ["h1", "h2", "h3"] { try await Self.add(session, healthy, url, ["--title", ".title"]) }
        // --timeout stops the runaway; 15 s leaves the healthy feeds' workers time on a loaded machine.
        let sync = try await session.feedcli("sync", "--jsonl", "--timeout", "15", "--jq-memory", "100M", "--quiet")
        #expect(sync.status == 65, "the most serious failure, not a signal: \(sync.status) \(sync.stderr)")
        let entries = JSONLines.objects(sync.stdout)
        for healthy in ["h1", "h2", "h3"] {
            #expect(entries.filter { $0["feed"] as? String == healthy }.count == 3, "\(healthy) synced as if alone")
        }
        #expect(entries.allSatisfy { ["h1", "h2", "h3"].contains($0["feed"] as? String ?? "") })
        let page = "on \(url)"
        #expect(
            sync.stderr.contains("crash: bad data: --published (item 1) \(page): jq crashed on it (SIGABRT)"),
            "\(sync.stderr)")
        #expect(
            sync.stderr.contains("runaway: bad data: --title (item 1) \(page): it ran past --timeout (15 s)"),
            "\(sync.stderr)")
        // Which of its two limits the hog meets first is the machine's speed (on a loaded one it
        // may not reach 100M within 3 s); either fails only its feed, named. Alone with time to
        // spare, it meets the memory limit.
        #expect(
            sync.stderr.contains("hog: bad data: --title (item 1) \(page): it ran out of memory (--jq-memory 100M)")
                || sync.stderr.contains("hog: bad data: --items \(page): it ran past --timeout (15 s)")
                || sync.stderr.contains("hog: bad data: --title (item 1) \(page): it ran past --timeout (15 s)"),
            "\(sync.stderr)")
        let alone = try await session.feedcli("sync", "hog", "--timeout", "300", "--jq-memory", "100M", "--quiet")
        #expect(
            alone.status == 65 && alone.stderr.contains("it ran out of memory (--jq-memory 100M)"), "\(alone.stderr)")
        for culprit in ["crash", "runaway", "hog"] {
            #expect(
                try await session.status(culprit)?["last_error_code"] as? Int == 65, "status shows \(culprit)'s failure"
            )
        }
    }

    /// More of what crashed feedcli with jq 1.6 inside it: each now fails its own feed, 65.
    @Test(arguments: [".title|.[nan:]", #"reduce range(1000000) as $i (null; [.]) | "x""#, ".t|strftime(\"%Y\")"])
    func whatCrashesJQFailsOnlyItsFeed(expression: String) async throws {
        let server = try Self.server()
        let session = StoreSession()
        try await Self.add(session, "bad", server.baseURL + "/p", ["--title", expression])
        let sync = try await session.feedcli("sync", "bad", "--jq-memory", "200M")
        #expect(sync.status == 65, "a failure of the feed, never a signal: \(sync.status) \(sync.stderr)")
        #expect(sync.stderr.contains("--title (item 1) on \(server.baseURL)/p:"), "\(sync.stderr)")
    }

    /// A page of 300 bytes cannot become a million items: items jq builds (values, not paths into
    /// the page) are at most as many as a page may hold values.
    @Test func itemsBuiltByAnExpressionAreBounded() async throws {
        let server = try Self.server()
        let session = StoreSession()
        let add = try await session.run([
            "feeds", "add", "many", server.baseURL + "/p", "--kind", "json",
            "--items", #"range(900000) as $i | {id: $i, title: "x"}"#,
        ])
        #expect(add.status == 0, "\(add.stderr)")
        // The bound on items is under test, not the machine's speed: a loaded machine may take
        // more than the default 30 s to build 200,000 of them.
        let sync = try await session.feedcli("sync", "many", "--timeout", "600")
        #expect(sync.status == 65, "\(sync.stderr)")
        #expect(sync.stderr.contains("--items on \(server.baseURL)/p: built more than 200000 items"), "\(sync.stderr)")
        #expect(try await session.status("many")?["entries"] as? Int == 0)
    }

    /// A feed whose expression crashes jq does not stop `next --all` from reading another feed.
    @Test func nextAcrossFeedsSurvivesACrashingFeed() async throws {
        let server = try Self.server()
        let session = StoreSession()
        #expect(try await session.feedcli("feeds", "remove", "posts").status == 0)
        try await Self.add(session, "crash", server.baseURL + "/p", ["--published", ".t|todate"])
        try await Self.add(session, "fine", server.baseURL + "/p", ["--title", ".title"])
        let next = try await session.feedcli("next", "--all", "--json")
        #expect(next.status < 128, "\(next.stderr)")
        #expect((next.json as? [String: Any])?["feed"] as? String == "fine", "\(next.stdout)\(next.stderr)")
    }

    /// `$ENV` and `env` are `{}` in the worker: an expression cannot read a secret, whatever
    /// feedcli's own environment holds.
    @Test func expressionsSeeNoEnvironment() async throws {
        let server = try Self.server()
        let session = StoreSession()
        try await Self.add(
            session, "env", server.baseURL + "/p", ["--title", "$ENV|tostring", "--text", "env|tostring"])
        let sync = try await Feedcli.run(
            Feedcli.onStore(session.state, ["sync", "env", "--jsonl"]),
            environment: ["AWS_SECRET_ACCESS_KEY": "hunter2"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let entries = JSONLines.objects(sync.stdout)
        #expect(entries.count == 3)
        #expect(
            entries.allSatisfy { $0["title"] as? String == "{}" && $0["text"] as? String == "{}" }, "\(sync.stdout)")
        #expect(!sync.stdout.contains("hunter2"))
    }

    /// Builtins that read input or files are refused when given (64), before jq compiles them
    /// (jq 1.6 aborts compiling `include` without a search path); the same words as fields,
    /// variables, keys or text are not.
    @Test(arguments: [
        "include \"x\"; .title", "import \"s\" as $s; .title", "[inputs]", "input", "input_filename",
        ".title + (input|tostring)", "\"\\(input)\"", "modulemeta", ".[input:]",
    ])
    func expressionsThatReadInputOrFilesAreRefusedWhenGiven(expression: String) async throws {
        let session = StoreSession()
        let add = try await session.run([
            "feeds", "add", "x", "http://127.0.0.1:9/p", "--kind", "json", "--title", expression,
        ])
        #expect(add.status == 64, "\(add.stderr)")
        #expect(add.stderr.contains("reads input or files"), "\(add.stderr)")
        #expect(try await session.feedcli("status", "x").status == 66, "nothing registered")
    }

    @Test(arguments: [".input", "$input", "{input: .title}|.input", "\"input\"", ".title # input", "inputsx"])
    func theSameWordsAsNamesOrTextAreAllowed(expression: String) {
        #expect(JQExpressionCheck.refusedBuiltin(in: expression) == nil, "\(expression)")
    }

    /// jq's `stderr` and `debug` write nowhere a person sees.
    @Test func jqsOwnStderrAndDebugOutputNeverReachTheTerminal() async throws {
        let server = try Self.server()
        let session = StoreSession()
        try await Self.add(
            session, "noisy", server.baseURL + "/p", ["--title", ".title|stderr|debug|\"\\u001b[2J\"+."])
        let sync = try await session.feedcli("sync", "noisy")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stderr.isEmpty, "\(sync.stderr)")
        #expect(!sync.stdout.contains("\u{1B}"), "the title's escape is shown escaped")
    }

    /// jq 1.6 rounds numbers past 2^53: two ids built by `tostring` can become one. The second
    /// item is then a skipped item naming the first, never merged in silence.
    @Test func twoItemsGivenOneIdAreNotMerged() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200,
                text:
                    #"{"posts":[{"id":12345678901234567891},{"id":12345678901234567892},{"id":12345678901234567891}]}"#)
        }
        let session = StoreSession()
        try await Self.add(session, "ids", server.baseURL + "/p", ["--id", ".id|tostring"])
        let sync = try await session.feedcli("sync", "ids", "--jsonl")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(JSONLines.ids(sync.stdout) == ["12345678901234567000"])
        let warnings = sync.stderr.split(separator: "\n")
        #expect(
            warnings == [
                "feedcli: ids: warning: skipped item 2 of \(server.baseURL)/p: same id as item 1 (12345678901234567000)"
            ],
            "the third is the first again, one entry: \(sync.stderr)")
    }

    /// A lone surrogate escape anywhere in a page: jq reads it as U+FFFD, the store keeps the
    /// exact text, and JSON output writes `\ufffd`, so Debian's jq 1.6 reads every line.
    @Test func aPageWithALoneSurrogateIsReadAndItsOutputIsReadableByJQ() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200, text: #"{"posts":[{"id":1,"title":"\ud83d x"},{"id":2,"title":"ok \ud83d\ude00"}]}"#)
        }
        let session = StoreSession()
        try await Self.add(session, "s", server.baseURL + "/p", ["--title", ".title"])
        let sync = try await session.feedcli("sync", "s", "--jsonl")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains(#""source":{"id":1,"title":"\ufffd x"}"#), "\(sync.stdout)")
        #expect(sync.stdout.contains("\"title\":\"ok \u{1F600}\"}"), "a pair is one character: \(sync.stdout)")
        let stored = try FeedStore.open(at: session.state).entries(id: "1", feed: "s").first?.source.text
        #expect(stored == #"{"id":1,"title":"\ud83d x"}"#, "the store keeps the exact text")
        let jq = try await Feedcli.shell("\"$FEEDCLI\" list s --json --state '\(session.state)' | jq -c '.[].title'")
        #expect(jq.status == 0, "\(jq.stderr)")
        #expect(jq.stdout == "\"ok 😀\"\n\"\u{FFFD} x\"\n", "\(jq.stdout)")
    }

    /// A path for an OPML file in the session's folder (made first: feedcli makes it only with
    /// the store).
    static func fileBeside(_ session: StoreSession) throws -> String {
        let folder = (session.state as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return session.state + ".opml"
    }

    /// A hostile OPML file: a token variable it names is not taken, an expression that reads
    /// files is refused with its reason, a masked password is refused, and the rest imports in
    /// one transaction.
    @Test func aHostileOPMLFileDecidesNoSecret() async throws {
        let session = StoreSession()
        let file = try Self.fileBeside(session)
        let ns = #"xmlns:feedcli="https://feedcli.example/opml""#
        try """
        <?xml version="1.0"?><opml version="2.0" \(ns)><body>
        <outline text="rust" xmlUrl="https://blog.example/feed.json" feedcliKind="json" feedcliTokenEnv="AWS_SECRET_ACCESS_KEY"/>
        <outline text="leak" xmlUrl="https://x.example/a" feedcliKind="json"
          feedcliExpressions="{&quot;next_url&quot;:&quot;import \\&quot;config\\&quot; as $d {search:\\&quot;~/.docker\\&quot;}; $d|tostring&quot;}"/>
        <outline text="masked" xmlUrl="https://me:***@x.example/b" feedcliKind="linked"/>
        <outline text="fine" xmlUrl="https://x.example/c" feedcliKind="linked"/>
        </body></opml>
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await session.feedcli("feeds", "import", file)
        #expect(imported.status == 65, "something was skipped: \(imported.stderr)")
        #expect(
            imported.stderr.contains("rust sends no token: the file names $AWS_SECRET_ACCESS_KEY"), "\(imported.stderr)"
        )
        #expect(imported.stderr.contains("feeds set rust --token-env AWS_SECRET_ACCESS_KEY"))
        #expect(imported.stderr.contains("skipped leak: usage: --next-url"), "\(imported.stderr)")
        #expect(imported.stderr.contains("reads input or files"))
        #expect(imported.stderr.contains("skipped masked: its URL's password or key is masked"), "\(imported.stderr)")
        #expect(
            imported.stderr.contains("imported 2 of 4 feeds from \(file) (0 already there, 2 skipped)"),
            "\(imported.stderr)")
        #expect(try await session.status("rust")?["token_env"] is NSNull, "no token variable taken from the file")
        #expect(try await session.feedcli("feeds", "set", "rust", "--token-env", "RUST_TOKEN").status == 0)
        #expect(try await session.status("rust")?["token_env"] as? String == "RUST_TOKEN")
    }

    /// Thousands of outlines import in one transaction (39 s before; the suite's time limit
    /// is the only bound: speed is the benchmark's to measure).
    @Test func fiveThousandOutlinesImportInOneTransaction() async throws {
        let session = StoreSession()
        let file = try Self.fileBeside(session)
        let outlines = (1...5000).map {
            #"<outline text="f\#($0)" xmlUrl="https://x.example/\#($0)" feedcliKind="linked"/>"#
        }
        try (#"<?xml version="1.0"?><opml version="2.0"><body>"# + outlines.joined() + "</body></opml>")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await session.feedcli("feeds", "import", file)
        #expect(imported.status == 0, "\(imported.stderr.suffix(300))")
        #expect(
            (try await session.feedcli("feeds", "list", "--json").json as? [Any])?.count == 5000,
            "the built-in posts, unused, retired")
    }

    /// A credential in a feed URL's query is used for the request and shown masked wherever a
    /// URL is shown: `-v`, `status --json`, `feeds list`, the OPML export.
    @Test func aCredentialQueryParameterIsShownMaskedEverywhere() async throws {
        let seen = Locked<[String]>([])
        let server = try LoopbackServer { request, connection in
            seen.withLock { $0.append(request.path) }
            connection.respond(200, text: #"[{"id":"a"}]"#)
        }
        let session = StoreSession()
        try await session.add("k", server.baseURL + "/l?access_token=SECRET1&api_key=SECRET2&page=1", kind: "linked")
        let sync = try await session.feedcli("sync", "k", "-v")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(seen.value == ["/l?access_token=SECRET1&api_key=SECRET2&page=1"], "the request uses the real values")
        let shown = await [
            sync.stderr, try session.feedcli("status", "--json").stdout, try session.feedcli("feeds", "list").stdout,
            try session.feedcli("feeds", "export", "--opml").stdout,
        ]
        for text in shown {
            #expect(!text.contains("SECRET"), "\(text)")
            #expect(text.contains("access_token=***"), "\(text)")
        }
    }
}
