import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedHTTP
@testable import FeedKinds
@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// Small defects of the contract (and a busy wait), each with the
/// behaviour users get now.
@Suite("Small promises: dates, messages, timeouts, waits", .timeLimit(.minutes(3)))
struct SmallContractTests {
    @Test func anImpossibleDateIsNoneNeverRolledOver() {
        #expect(Timestamp.parse("2026-02-30T10:00:00Z") == nil, "was March 2")
        #expect(Timestamp.parse("2026-04-31T10:00:00Z") == nil)
        #expect(Timestamp.parse("2023-02-29T10:00:00Z") == nil)
        #expect(Timestamp.parse("2024-02-29T10:00:00Z") != nil, "a leap day")
        #expect(Timestamp.parse("2000-02-29T10:00:00Z") != nil && Timestamp.parse("1900-02-29T10:00:00Z") == nil)
        #expect(Timestamp.normalize("2026-02-30T10:00:00+0000") == nil)
        #expect(FeedTime.normalize(.string("Mon, 30 Feb 2026 10:00:00 GMT")) == nil)
        #expect(HTTPDate.parse("Mon, 31 Jun 2026 10:00:00 GMT") == nil)
    }

    /// A URL no request could be made to is refused when it is added (78), not at the first sync
    /// (`http://[::1` and port 99999 were registered).
    @Test(arguments: [
        ("http://[::1", "has a bad host"), ("http://127.0.0.1:99999/feed", "has a bad port"),
        ("http://:80/feed", "has no host"), ("http://127.0.0.1:0/feed", "has a bad port"),
    ])
    func aURLNoRequestCouldReachIsRefusedWhenAdded(url: String, why: String) async throws {
        let session = StoreSession()
        let add = try await session.feedcli("feeds", "add", "bad", url, "--kind", "linked")
        #expect(add.status == 78, "\(add.stderr)")
        #expect(add.stderr.contains(why), "\(add.stderr)")
        #expect(
            try await session.feedcli("feeds", "list").stdout.contains("No feeds of your own yet"), "nothing registered"
        )
    }

    @Test func messagesEscapeAsPlainOutputDoesNotAsSwiftDoes() async throws {
        #expect(Excerpt.of("a\u{1B}[31mb\u{9B}c", limit: 60) == #"a\x1B[31mb\u009Bc"#)
        #expect(Excerpt.of("abcdef", limit: 3) == "abc…")
        let server = try LoopbackServer { _, connection in connection.respond(200, text: "\u{1B}[2J not json") }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/feed", kind: "graph")
        let run = try await session.feedcli("sync", "g")
        #expect(run.status == 65)
        #expect(run.stderr.contains(#"\x1B[2J"#) && !run.stderr.contains("\\u{"), "\(run.stderr)")
    }

    @Test func aTinyTimeoutIsOneMillisecondNotNone() async throws {
        // A server that never answers: only the request's timeout ends the run.
        let server = try LoopbackServer { _, connection in
            connection.waitForPeerClose(limit: .seconds(30))
        }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/feed", kind: "graph")
        // `timeout 15`: before, 0.0001 s meant no limit at all and the run waited for the server.
        let run = try await Feedcli.shell(
            #"timeout 15 "$FEEDCLI" sync g --timeout 0.0001 --retries 0 --state "$S""#,
            environment: ["S": session.state])
        #expect(run.status == 75, "\(run.stderr)")
    }

    /// `--wait 0.5` is half a second for a store another process holds; before, whole seconds
    /// were taken and 0.5 became 1 ms. The wait itself is `StoreTests`' (on a virtual clock);
    /// here the option's value, and a busy store is a temporary failure (75) of the process.
    @Test func aFractionalWaitIsHonouredByTheStore() async throws {
        var options = StoreOptions()
        options.wait = 0.5
        #expect(options.waitDuration == .milliseconds(500))
        options.wait = 0.0001
        #expect(options.waitDuration == .milliseconds(1), "rounded up, never to no wait")
        let session = StoreSession()
        #expect(try await session.feedcli("read", "--all").status == 0)  // creates the store
        // The holder keeps the store until feedcli has finished (it waits for the file that
        // says so), not for a length of time.
        let holder = try await Feedcli.shell(
            #"""
            python3 -c '
            import os, sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN EXCLUSIVE")
            print("held", flush=True)
            while not os.path.exists(sys.argv[1] + ".done"): time.sleep(0.01)
            ' "$S" > "$S.held" &
            until grep -q held "$S.held" 2>/dev/null; do sleep 0.01; done
            "$FEEDCLI" feeds add x http://127.0.0.1:9/ --kind graph --wait 0.5 --state "$S"
            echo "status $?"
            touch "$S.done"
            wait
            """#, environment: ["S": session.state])
        #expect(
            holder.stdout.contains("status 75"),
            "a busy store is a temporary failure: \(holder.stdout) \(holder.stderr)")
        #expect(holder.stderr.contains("busy"), "\(holder.stderr)")
    }
}

/// One signal, one code: a SIGTERM at the first moment feedcli can see it
/// (its first statement blocks the signal; /proc shows when) exits 130 like a later one, for a
/// command that is still running and for one that finishes before the handler runs. Before, a
/// SIGTERM in the first milliseconds killed the process (143).
@Suite("SIGTERM at start-up", .serialized, .timeLimit(.minutes(2)))
struct EarlySignalTests {
    /// Waits until the process blocks SIGTERM (its `SigBlk` mask in /proc), then sends it; false
    /// when the process ended first. It spins, on a thread of its own: the first moment lasts microseconds, too short for any
    /// sleep, and a process's signal mask sends nothing a test could await.
    private func terminateAtFirstChance(_ process: SpawnedProcess) async -> Bool {
        await onOwnThread { Self.spinUntilSIGTERMIsBlocked(process) }
    }

    private static func spinUntilSIGTERMIsBlocked(_ process: SpawnedProcess) -> Bool {
        let status = "/proc/\(process.processIdentifier)/status"
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            // Gone, or ended and not yet waited for: it ran to its end before the signal.
            guard let text = try? String(contentsOfFile: status, encoding: .utf8),
                !text.contains("\nState:\tZ")
            else { return false }
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
                let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16),
                mask & (1 << (UInt64(SIGTERM) - 1)) != 0
            {
                kill(process.processIdentifier, SIGTERM)
                return true
            }
        }
        return false
    }

    @Test(arguments: [["status"], ["sync"], ["next", "--json"]])
    func aSIGTERMAtTheFirstMomentExits130(arguments: [String]) async throws {
        // The request stays in flight until feedcli, terminated, closes it.
        let server = try LoopbackServer { _, connection in
            connection.waitForPeerClose()
        }
        let session = StoreSession()
        try await session.add("g", server.baseURL + "/g", kind: "graph")
        // A command as short as `status` may end before the spinning thread is scheduled (two
        // cores, the other suites running): such a run saw no signal and exits 0. Five runs
        // that were signalled are the test, within twenty.
        var signalled = 0
        for _ in 0..<20 where signalled < 5 {
            let run = try Feedcli.start(Feedcli.onStore(session.state, arguments))
            let sent = await terminateAtFirstChance(run.process)
            let result = await run.finish()
            if sent {
                signalled += 1
                #expect(result.status == 130, "\(arguments): \(result.stderr)")
            } else {
                #expect(result.status == 0, "not signalled, so it ran to its end: \(result.stderr)")
            }
        }
        #expect(signalled > 0, "feedcli never blocked SIGTERM while it ran")
    }

    /// A SIGTERM while a retry waits out its backoff ends the run at once with 130: the wait is
    /// cut short. It took 2 s, the signal handler's last resort, whatever the command.
    /// The bound below is that last resort, not a speed target.
    @Test func aSIGTERMDuringARetrysWaitEndsTheRunAtOnce() async throws {
        let asked = TestSignal()
        let server = try LoopbackServer { _, connection in
            asked.signal()
            connection.respond(503, text: "{}")
        }
        let session = StoreSession()
        try await session.add("busy", server.baseURL + "/feed", kind: "linked")
        let run = try Feedcli.start(["sync", "busy", "--retries", "5", "--state", session.state])
        #expect(await asked.wait(seconds: 30), "the first request came")
        let sent = ContinuousClock.now
        run.process.send(SIGTERM)
        let result = await run.finish()
        let took = ContinuousClock.now - sent
        #expect(result.status == 130, "\(result.stderr)")
        #expect(took < .milliseconds(1500), "ended by its own run, not the 2 s last resort: \(took)")
        #expect(server.requests.count == 1, "no request after the signal")
    }

    /// feedcli blocks SIGINT and SIGTERM and ignores SIGPIPE; the browser `open` starts must not
    /// inherit that (it could not be stopped with Ctrl-C).
    @Test func theBrowserStartsWithDefaultSignals() async throws {
        let (session, server) = try await StoreSession.withOneEntryToOpen()
        defer { withExtendedLifetime(server) {} }
        let folder = TestScratch.folder("browser")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let browser = folder.appendingPathComponent("browser").path
        let report = folder.appendingPathComponent("signals").path
        try "#!/bin/sh\ngrep -E '^Sig(Blk|Ign):' /proc/self/status > \(report)\n".write(
            toFile: browser, atomically: true, encoding: .utf8)
        chmod(browser, 0o755)
        let run = try await Feedcli.run(
            Feedcli.onStore(session.state, ["open", "a", "--feed", "l"]), environment: ["BROWSER": browser])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
        func mask(_ name: String) -> UInt64? {
            lines.first { $0.hasPrefix(name) }.flatMap {
                UInt64($0.dropFirst(name.count).trimmingCharacters(in: .whitespaces), radix: 16)
            }
        }
        let signals =
            UInt64(1) << (UInt64(SIGINT) - 1) | UInt64(1) << (UInt64(SIGTERM) - 1) | UInt64(1) << (UInt64(SIGPIPE) - 1)
        #expect(mask("SigBlk:").map { $0 & signals } == 0, "\(lines)")
        #expect(mask("SigIgn:").map { $0 & signals } == 0, "\(lines)")
    }
}
