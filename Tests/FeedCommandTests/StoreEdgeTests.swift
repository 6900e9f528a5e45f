import CSQLite
import FeedCore
import FeedKinds
import FeedModel
import FeedReactor
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTerminal
import FeedTesting
import Foundation
import Testing

/// Names, paths and secrets; store edges; honest status.
@Suite("Store edges, names and secrets", .serialized, .timeLimit(.minutes(3)))
struct StoreEdgeTests {
    let session = StoreSession()
    var state: String { session.state }

    func files(under folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).sorted()
    }

    /// A store an older feedcli made is upgraded by whichever command reads it first, `list`
    /// included (before, a reading command failed with 74 until a writing one had run); a
    /// read-only file of an older schema is refused, saying why.
    @Test func aReadingCommandUpgradesAnOlderStore() async throws {
        let session = StoreSession()
        #expect(try await session.feedcli("read", "--all").status == 0)  // creates the store
        let older = { () throws in
            let connection = try SQLiteConnection(path: session.state, flags: SQLITE_OPEN_READWRITE)
            // As v15 left it: the index v16 drops.
            try connection.execute(
                "CREATE INDEX entry_by_publication ON entry (COALESCE(published, fetched_at), seq)")
            try connection.execute("DELETE FROM grdb_migrations WHERE identifier LIKE 'v16:%'")
        }
        try older()
        let listed = try await session.feedcli("list")
        #expect(listed.status == 0 && listed.stderr.isEmpty, "\(listed.stderr)")
        let upgraded = try SQLiteConnection(path: session.state, flags: SQLITE_OPEN_READONLY)
        #expect(
            try upgraded.statement("SELECT 1 FROM sqlite_master WHERE name = 'entry_by_publication'").first { _ in true
            } == nil)

        try older()
        // Root may write any file, so the store is made read-only for `nobody`, who runs feedcli.
        let folder = (session.state as NSString).deletingLastPathComponent
        let asNobody = getuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
        if getuid() == 0 { #expect(try await Feedcli.shell("chown -R 65534:65534 '\(folder)'").status == 0) }
        #expect(chmod(session.state, 0o400) == 0)
        let refused = try await Feedcli.shell(asNobody + #""$FEEDCLI" list --state '"# + session.state + "'")
        #expect(refused.status == 74 && refused.stderr.contains("needs an upgrade"), "\(refused.stderr)")
        #expect(chmod(session.state, 0o600) == 0)
    }

    /// Names keep letters of every script, and the longest of them still
    /// makes a lock file the file system takes (64 CJK characters are 576 bytes percent-encoded).
    @Test func aLongNameInAnotherScriptSyncs() async throws {
        let server = try PagedServer(kind: .linked, count: 2)
        let name = String(repeating: "日本語のブログ", count: 10).prefix(64)
        #expect(try await session.feedcli("feeds", "add", String(name), server.url, "--kind", "linked").status == 0)
        let sync = try await session.feedcli("sync", String(name), "--jsonl")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(JSONLines.ids(sync.stdout).count == 2)
        #expect(
            try await session.feedcli("feeds", "add", "a b", server.url, "--kind", "linked").status == 64,
            "never a space")
    }

    @Test func feedNamesNeverBecomePaths() async throws {
        #expect(try await session.feedcli("read", "--all").status == 0)  // creates the store
        let folder = (state as NSString).deletingLastPathComponent
        let parent = (folder as NSString).deletingLastPathComponent
        let before = files(under: folder)
        for name in ["x/../../../escaped", "a/b", "..", "nope"] {
            let run = try await session.feedcli("next", name)
            #expect(run.status == 66, "\(name): \(run.stderr)")
            #expect(run.stderr.contains("no feed named"))
        }
        #expect(files(under: folder) == before, "no lock file for a feed that does not exist")
        #expect(!FileManager.default.fileExists(atPath: parent + "/escaped.lock"))
        #expect(
            !FileManager.default.fileExists(atPath: (parent as NSString).deletingLastPathComponent + "/escaped.lock"))
    }

    @Test func aStoreReachedThroughASymlinkSharesItsLocks() throws {
        let store = try FeedStore.open(at: state)
        let link = (state as NSString).deletingLastPathComponent + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: state)
        let held = try store.lock(feed: "posts")
        #expect(throws: FeedFailure.self) { try FeedStore.open(at: link, wait: .zero).lock(feed: "posts") }
        _ = held
    }

    @Test func passwordsInURLsAreMaskedEverywhere() async throws {
        let server = try LoopbackServer { _, connection in connection.respond(500, text: "{}") }
        let url = server.baseURL.replacingOccurrences(of: "http://", with: "http://user:hunter2@") + "/feed"
        #expect(try await session.feedcli("feeds", "add", "secret", url, "--kind", "linked").status == 0)
        let run = try await session.feedcli("sync", "secret", "--verbose")
        #expect(run.status == 75)
        let texts = await [
            run.stderr, try session.feedcli("status").stdout, try session.feedcli("status", "--json").stdout,
            try session.feedcli("feeds", "list").stdout,
        ]
        for text in texts {
            #expect(!text.contains("hunter2"), "\(text)")
            #expect(text.contains("user:***@"), "\(text)")
        }
        #expect((try await session.requireStatus("secret")["last_error"] as? String)?.contains("hunter2") == false)
    }

    @Test func aDamagedFeedRowIsAStoreFailureNotACrash() async throws {
        let path = temporaryStorePath()
        _ = try FeedStore.open(at: path).feeds()
        // What a hand edit can leave behind: text where a number belongs.
        #expect(try await editStore(at: path, "UPDATE feed SET next_index = 'many'"))
        #expect { try FeedStore.open(at: path).feed(named: "posts") } throws: { error in
            (error as? FeedFailure)?.exitCode == 74 && "\(error)".contains("next_index")
        }
    }

    @Test func aDirectoryAtTheStorePathSaysSo() async throws {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let run = try await session.feedcli("list")
        #expect(run.status == 74)
        #expect(run.stderr.contains("is a directory, not a feedcli store"))
    }

    @Test func aReadOnlyStoreCanBeReadButNotWritten() async throws {
        let posts = try PagedServer(kind: .linked, count: 3)
        #expect(try await session.feedcli("feeds", "add", "l", posts.url, "--kind", "linked").status == 0)
        #expect(try await session.feedcli("sync", "l").status == 0)
        let folder = (state as NSString).deletingLastPathComponent
        // Root may write any file, so the store is made read-only for `nobody`, who runs feedcli.
        let asNobody = getuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
        if getuid() == 0 { #expect(try await Feedcli.shell("chown -R 65534:65534 '\(folder)'").status == 0) }
        #expect(chmod(state, 0o400) == 0)
        let before = files(under: folder)
        func run(_ arguments: String) async throws -> FeedcliRun {
            try await Feedcli.shell(asNobody + #""$FEEDCLI" "# + arguments + " --state '\(state)'")
        }
        let listed = try await run("list --jsonl")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").count == 3)
        #expect(try await run("show 2 --feed l").status == 0)
        #expect(try await run("status").status == 0)
        #expect(try await run("feeds list --json").status == 0)
        for writer in ["sync l", "next l", "feeds add x http://127.0.0.1/ --kind linked", "feeds remove l"] {
            let refused = try await run(writer)
            #expect(refused.status == 74, "\(writer): \(refused.stderr)")
            #expect(refused.stderr.contains("the store is read-only: \(state)"), "\(writer): \(refused.stderr)")
        }
        #expect(files(under: folder) == before, "no -shm or -wal left behind")
        #expect(chmod(state, 0o600) == 0)
        #expect(try await Feedcli.run(["next", "l", "--state", state]).status == 0, "writable again, and intact")
    }

    @Test func aFetchThatFindsNothingNewClearsTheLastError() async throws {
        let server = try PagedServer(kind: .graph, count: 2)
        #expect(try await session.feedcli("feeds", "add", "g", server.url, "--kind", "graph").status == 0)
        #expect(try await session.feedcli("sync", "g").status == 0)
        server.failNext(500)
        #expect(try await session.feedcli("sync", "g").status == 75)
        let failed = try await session.requireStatus("g")
        #expect(failed["last_error_code"] as? Int == 75)
        // The recovering fetch runs in-process on a clock a minute later, so its time is known
        // (no sleeping until the wall clock's second changes).
        let failedAt = try #require(Timestamp.parse(failed["last_fetch_at"] as? String ?? ""))
        let later = failedAt.addingTimeInterval(60)
        var fetch = FetchOptions()
        fetch.retries = 0
        let context = CommandContext(
            statePath: state, fetch: fetch, stdout: BufferSink(), stderr: BufferSink(), now: { later })
        #expect(await runCommand(Sync.self, ["g"], context) == 0, "a 304")
        let recovered = try await session.requireStatus("g")
        #expect(recovered["last_error"] is NSNull && recovered["last_error_code"] is NSNull)
        #expect(recovered["last_fetch_at"] as? String == Timestamp.format(later))
        let selected = try await Feedcli.shell(
            #""$FEEDCLI" status --json --state "$S" | jq -r '.[] | select(.last_error) | .name'"#,
            environment: ["S": state])
        #expect(selected.stdout.isEmpty, "the README's recipe shows no broken feed")
    }

    /// Text and blob values are bound in place (one buffer a statement, `SQLITE_STATIC`): a
    /// statement run again and again, with values that grow past the buffer, empty ones, NULs
    /// and text beside blobs, stores each exactly, and nothing of one run leaks into the next.
    @Test func valuesBoundInPlaceAreStoredExactlyRunAfterRun() throws {
        let connection = try SQLiteConnection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute("CREATE TABLE t (n INTEGER, a TEXT, b BLOB, c TEXT)")
        var expected: [(Int, String, String, String?)] = []
        for n in 0..<60 {
            let a = String(repeating: "é\u{0}x", count: n * n)  // 0 to 14,000 bytes: the buffer grows
            let b = n % 3 == 0 ? "" : "blob \(n) " + String(repeating: "🙂", count: n)
            let c: String? = n % 2 == 0 ? nil : "t\(n)"
            try connection.statement("INSERT INTO t (n, a, b, c) VALUES (?, ?, ?, ?)").run([
                .integer(Int64(n)), .text(a), .blob(b), SQLiteValue(c),
            ])
            expected.append((n, a, b, c))
        }
        var read: [(Int, String, String, String?)] = []
        try connection.statement("SELECT n, a, b, c FROM t ORDER BY n").forEach { row in
            read.append((try row.requiredInteger(0), row.text(1) ?? "<null>", row.text(2) ?? "<null>", row.text(3)))
            return true
        }
        #expect(read.count == expected.count)
        for (got, want) in zip(read, expected) {
            #expect(got.0 == want.0 && got.1 == want.1 && got.2 == want.2 && got.3 == want.3, "row \(want.0)")
        }
        let lengths = try connection.statement("SELECT length(CAST(a AS BLOB)) FROM t WHERE n = ?").first([.integer(59)]
        ) { try $0.requiredInteger(0) }
        #expect(lengths == 59 * 59 * 4, "every byte bound, NUL included")
    }
}
