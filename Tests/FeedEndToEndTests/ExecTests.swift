import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `--exec CMD`: each new entry handed to a real `/bin/sh -c CMD`, committed
/// only once the command exited 0; a failing command stops its feed at that entry (75) and the
/// other feeds go on. The built `feedcli` against `Fixtures/streams/stream_server.py`.
@Suite("--exec: entries handed to a command, at least once", .serialized, .timeLimit(.minutes(3)))
struct ExecTests {
    let server: PythonServer
    let base: String
    let session = StoreSession()
    /// Where the commands write what they were given (`$OUT` in their environment).
    let out = TestScratch.folder("exec")

    init() async throws {
        server = try await PythonServer.streams()
        base = "http://127.0.0.1:\(server.port)"
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    }

    func add(_ name: String, _ url: String, _ options: String...) async throws {
        let run = try await session.run(["feeds", "add", name, url] + options)
        #expect(run.status == 0, "\(run.stderr)")
    }

    func feedcli(_ arguments: String...) async throws -> FeedcliRun {
        try await Feedcli.run(Feedcli.onStore(session.state, arguments), environment: ["OUT": out.path])
    }

    func written(_ name: String) -> String {
        (try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    func entries(_ feed: String) async throws -> Int {
        try await session.requireStatus(feed)["entries"] as? Int ?? -1
    }

    /// A command that fails (exit 3) for the entry `id` until `$OUT/healed` exists, and takes
    /// every other one, appending its stdin to `$OUT/lines`.
    static func failing(at id: String) -> String {
        #"[ "$FEEDCLI_ID" = \#(id) ] && [ ! -e "$OUT/healed" ] && { exit 3; }; cat >> "$OUT/lines""#
    }

    @Test func eachEntryGoesToTheCommandAsAJSONLineWithItsFieldsInTheEnvironmentAndNothingFromTheServerRuns()
        async throws
    {
        let evil = out.appendingPathComponent("evil").path
        try await add("feed", base + "/polled/feed?per=3&max=3&evil=" + evil, "--kind", "linked")
        let command =
            #"cat >> "$OUT/lines"; printf '%s|%s|%s|%s|%s\n' "$FEEDCLI_FEED" "$FEEDCLI_ID" "$FEEDCLI_TITLE" "$FEEDCLI_URL" "$FEEDCLI_HANDLE" >> "$OUT/env""#
        let run = try await feedcli("sync", "--exec", command)
        #expect(run.status == 0 && run.stdout.isEmpty, "\(run.stderr)")
        let lines = JSONLines.objects(written("lines"))
        #expect(
            lines.compactMap { $0["id"] as? String } == ["feed-1", "feed-2", "feed-3"],
            "one JSON line each, oldest first")
        #expect(lines.first?["source"] is [String: Any], "the entry as --jsonl prints it")
        let env = written("env").split(separator: "\n").map(String.init)
        #expect(env.count == 3, "\(env)")
        #expect(env.last?.hasPrefix("feed|feed-3|item 3 of feed|https://example.org/feed/3|@") == true, "\(env)")
        let first = env.first ?? ""
        #expect(first.contains("$(touch \(evil))") && first.contains("`touch \(evil)2`"), "the title as text: \(first)")
        #expect(
            !first.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
            "control characters removed: \(first)")
        #expect(first.contains("[31mrednext line"), "\(first)")
        #expect(
            !FileManager.default.fileExists(atPath: evil) && !FileManager.default.fileExists(atPath: evil + "2"),
            "nothing a server sends is ever run")
        #expect(try await entries("feed") == 3)
        let again = try await feedcli("sync", "--exec", command)
        #expect(again.status == 0 && JSONLines.objects(written("lines")).count == 3, "delivered once")
    }

    @Test func aCommandFailingAtTheThirdEntryStopsThatFeedThereAndTheNextRunGoesOnFromIt() async throws {
        try await add("a", base + "/polled/a?per=5&max=5", "--kind", "linked")
        try await add("b", base + "/polled/b?per=2&max=2", "--kind", "linked")
        let run = try await feedcli("sync", "a", "b", "--exec", Self.failing(at: "a-3"))
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.contains("--exec command exited 3 for a @"), "said on stderr: \(run.stderr)")
        #expect(try await entries("a") == 2, "the two before it, and only those, committed")
        #expect(try await entries("b") == 2, "the other feed went on")
        #expect(FileManager.default.createFile(atPath: out.appendingPathComponent("healed").path, contents: nil))
        let next = try await feedcli("sync", "a", "--exec", Self.failing(at: "a-3"))
        #expect(next.status == 0, "\(next.stderr)")
        let ids = JSONLines.ids(written("lines"))
        #expect(
            ids.filter { $0.hasPrefix("a-") } == ["a-1", "a-2", "a-3", "a-4", "a-5"],
            "from the third on, each once: \(ids)")
        #expect(try await entries("a") == 5)
    }

    @Test func aKilledCommandAndOnePastItsTimeoutAreFailuresAndCommitNothing() async throws {
        try await add("k", base + "/polled/k?per=2&max=2", "--kind", "linked")
        let killed = try await feedcli("sync", "--exec", "kill -9 $$")
        #expect(killed.status == 75 && killed.stderr.contains("killed by signal 9"), "\(killed.stderr)")
        #expect(try await entries("k") == 0)
        let started = Date()
        let slow = try await feedcli("sync", "--exec", "sleep 30", "--exec-timeout", "1")
        #expect(slow.status == 75 && slow.stderr.contains("ran past --exec-timeout (1 s)"), "\(slow.stderr)")
        #expect(Date().timeIntervalSince(started) < 10, "killed at its timeout, not waited for")
        #expect(try await entries("k") == 0)
        let next = try await feedcli("next", "--exec", #"cat >> "$OUT/lines""#)
        #expect(
            next.status == 0 && JSONLines.ids(written("lines")) == ["k-1"], "next hands over one entry: \(next.stderr)")
    }

    /// A title (or URL, or id) over 128 KiB cannot keep the command from starting: the kernel
    /// refuses an environment string that long (E2BIG), so each value is cut to 4 KiB, on whole
    /// characters; the whole entry is on the command's stdin.
    @Test func anEntryWithAHugeTitleStillStartsTheCommand() async throws {
        let title = String(repeating: "é", count: 100_000)  // 200,000 bytes
        let body =
            #"[{"id":"big","title":"\#(title)","url":"https://example.org/\#(String(repeating: "x", count: 140_000))"}]"#
        let server = try LoopbackServer { _, connection in connection.respond(200, text: body) }
        try await add("big", server.baseURL + "/items", "--kind", "linked")
        let command =
            #"cat > "$OUT/entry"; printf '%s' "$FEEDCLI_TITLE" > "$OUT/title"; printf '%s' "$FEEDCLI_URL" > "$OUT/url""#
        let run = try await feedcli("sync", "--exec", command)
        #expect(run.status == 0, "\(run.stderr)")
        let shown = written("title")
        #expect(
            shown.utf8.count <= 4096 && shown.utf8.count > 4000 && shown.allSatisfy { $0 == "é" }, "\(shown.utf8.count)"
        )
        #expect(written("url").utf8.count <= 4096)
        #expect(written("entry").contains(title), "the whole entry on stdin")
        #expect(try await entries("big") == 1)
    }

    /// The command inherits no descriptor but 0, 1 and 2: not the connection to the feed's
    /// server (open while a stream is followed), not a socket of feedcli's own.
    @Test func theCommandInheritsOnlyItsStandardDescriptors() async throws {
        try await add("ev", base + "/sse?count=1&hold=60", "--kind", "sse")
        let run = try await feedcli("follow", "--max-entries", "1", "--exec", #"exec > "$OUT/fds"; ls /proc/$$/fd"#)
        #expect(run.status == 0, "\(run.stderr)")
        let descriptors = written("fds").split(separator: "\n").map(String.init).sorted()
        #expect(descriptors == ["0", "1", "2"], "\(descriptors)")
    }

    @Test func execWithAFormatForStdoutOrABadTimeoutIsAUsageError() async throws {
        #expect(try await feedcli("sync", "--exec", "true", "--jsonl").status == 64)
        #expect(try await feedcli("follow", "--exec", "true", "--json").status == 64)
        #expect(try await feedcli("next", "--exec", "true", "--exec-timeout", "soon").status == 64)
    }

    @Test func followTriesAFeedWhoseCommandFailedAgainAfterAWait() async throws {
        try await add("ev", base + "/sse?count=2&hold=60", "--kind", "sse")
        let started = Date()
        // It fails for the first event once, then heals itself.
        let command =
            #"[ "$FEEDCLI_ID" = 1 ] && [ ! -e "$OUT/healed" ] && { touch "$OUT/healed"; exit 3; }; cat >> "$OUT/lines""#
        let run = try await feedcli("follow", "--max-entries", "2", "--exec", command)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 2, "said as it happened, and not again at the end: \(run.stderr)")
        #expect(
            lines.first?.contains("ev: failing (75, temporary: tried again): --exec command exited 3 for ev @") == true)
        #expect(lines.last?.hasPrefix("feedcli: ev: recovered after 1 failure, ") == true, "\(run.stderr)")
        #expect(JSONLines.ids(written("lines")) == ["1", "2"], "the refused entry again, then the next")
        #expect(Date().timeIntervalSince(started) >= 0.9, "after a wait of 1 s")
        #expect(run.status == 0, "the feed recovered: the session ends with its feeds healthy")
        #expect(try await entries("ev") == 2)
        // The handle the refusal named is the one the entry is stored under.
        let handle = lines.first.flatMap { $0.firstMatch(of: /for ev (@[0-9]+)/)?.1 }.map(String.init) ?? "none"
        let shown = try await feedcli("show", handle, "--json")
        #expect(shown.status == 0 && shown.stdout.contains(#""id":"1""#), "\(handle): \(shown.stdout) \(shown.stderr)")
    }

    /// An entry refused again and again keeps its number at every try, and so does every entry
    /// that waited behind it: no handle is used up by a retry.
    @Test func anEntryRefusedSeveralTimesKeepsItsHandleAtEveryTry() async throws {
        try await add("ev", base + "/sse?count=2&hold=60", "--kind", "sse")
        // Refuses the first event three times, then takes everything.
        let command =
            #"if [ "$FEEDCLI_ID" = 1 ]; then n=$(cat "$OUT/n" 2>/dev/null || echo 0); echo $((n+1)) > "$OUT/n"; [ "$n" -ge 3 ] || exit 3; fi; echo "$FEEDCLI_HANDLE" >> "$OUT/handles""#
        let run = try await feedcli("follow", "--max-entries", "2", "--exec", command)
        #expect(run.status == 0, "\(run.stderr)")
        let handles = written("handles").split(separator: "\n").map(String.init)
        #expect(handles.count == 2, "\(handles)")
        #expect(run.stderr.contains("for ev \(handles.first ?? "?") (id 1)"), "the refusal named it: \(run.stderr)")
        #expect(handles == ["@1", "@2"], "the numbers of the first try, none used up by the three refusals")
    }

    /// What the command took is committed as it goes (at least every 200 ms), not once the
    /// whole group went through it: a kill loses none of the entries whose command finished.
    @Test func whatTheCommandTookIsCommittedAsItGoes() async throws {
        try await add("ev", base + "/sse?count=6&hold=60", "--kind", "sse")
        let command = #"sleep 0.5; echo "$FEEDCLI_ID" >> "$OUT/done""#
        let started = try Feedcli.start(
            Feedcli.onStore(session.state, ["follow", "--exec", command]), environment: ["OUT": out.path])
        for _ in 0..<400 where written("done").split(separator: "\n").count < 3 {
            try await Task.sleep(for: .milliseconds(25))
        }
        try await Task.sleep(for: .milliseconds(300))  // the third's commit, at most 200 ms after it
        let finished = written("done").split(separator: "\n").count
        started.process.send(SIGKILL)
        _ = await started.finish()
        let stored = try await entries("ev")
        #expect(finished >= 3 && stored >= finished - 1, "\(stored) stored of \(finished) taken before the kill")
        #expect(stored < 6, "killed before the end: \(stored)")
    }

    /// A refusal's `last_error` is over once the entry's delivery goes through: `status` does
    /// not go on showing it.
    @Test func aRefusalIsForgottenOnceTheDeliveryGoesThrough() async throws {
        try await add("one", base + "/polled/one?per=1&max=1", "--kind", "linked")
        #expect(try await feedcli("sync", "one", "--jsonl").status == 0)
        let refused = try await feedcli("next", "one", "--exec", "exit 3")
        #expect(refused.status == 75, "\(refused.stderr)")
        let failing = try await session.requireStatus("one")["last_error"] as? String
        #expect(failing?.hasPrefix("--exec command exited 3") == true, "\(failing ?? "nil")")
        let taken = try await feedcli("next", "one", "--exec", "cat > /dev/null")
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(try await session.requireStatus("one")["last_error"] is NSNull, "forgotten")
    }

    @Test func sigtermWhileACommandRunsCommitsItsEntryOnlyIfTheCommandTookIt() async throws {
        try await add("ev", base + "/sse?count=3&hold=60", "--kind", "sse")
        let command = #"cat >> "$OUT/lines"; touch "$OUT/started"; sleep 3"#
        let started = try Feedcli.start(
            Feedcli.onStore(session.state, ["follow", "--exec", command]), environment: ["OUT": out.path])
        for _ in 0..<400 where !FileManager.default.fileExists(atPath: out.appendingPathComponent("started").path) {
            try await Task.sleep(for: .milliseconds(25))
        }
        kill(started.process.processIdentifier, SIGTERM)
        let run = await started.finish()
        #expect(run.status == 0, "SIGTERM ends a follow: \(run.stderr)")
        let handed = JSONLines.ids(written("lines"))
        #expect(!handed.isEmpty && handed.count < 3, "no command starts after SIGTERM: \(handed)")
        #expect(try await entries("ev") == handed.count, "each entry handed over and committed, or neither")
    }
}
