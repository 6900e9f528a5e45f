import FeedBase
import FeedReactorTesting
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedPostgres

/// Several machines on one PostgreSQL store: processes with homes of their own share
/// one database, as a server's cron and a laptop do. Every guarantee of the SQLite store holds
/// across them: each entry delivered once in total, nothing lost, no half-done run.
@Suite("Several machines, one PostgreSQL store", .timeLimit(.minutes(3)))
struct SeveralMachinesTests {
    /// A `linked` feed of 20 entries in four pages of five, newest first, chained by `Link`
    /// headers; each request waits at `gate` first.
    static func fourPages(_ gate: RequestGate) throws -> LoopbackServer {
        try LoopbackServer { request, connection in
            gate.arrive()
            let page = Int(request.path.split(separator: "=").last ?? "1") ?? 1
            let items = (1...5).map { #"{"id":"\#((4 - page) * 5 + $0)"}"# }.reversed().joined(separator: ",")
            let next =
                page < 4 ? [("Link", "<\(request.path.split(separator: "?")[0])?page=\(page + 1)>; rel=\"next\"")] : []
            connection.respond(200, headers: [("Content-Type", "application/json")] + next, text: "[\(items)]")
        }
    }

    /// A session on a new database with the feed `l` of `fourPages`, and a `sync l --jsonl`
    /// started and held at its third page (the first two printed and committed).
    static func walkHeldAtItsThirdPage() async throws -> (StoreSession, Feedcli.Started, RequestGate, LoopbackServer) {
        let gate = RequestGate()
        gate.hold(from: 3)
        let server = try fourPages(gate)
        let session = try await StoreSession.onPostgres()
        try await session.add("l", server.baseURL + "/l", kind: "linked")
        let walk = try Feedcli.start(Feedcli.onStore(session.state, ["sync", "l", "--jsonl"]))
        #expect(await gate.waitForArrivals(3))
        return (session, walk, gate, server)
    }

    /// A `follow` of every feed on one machine sees a feed another machine adds (the store's
    /// generation of the feeds' settings, schema v5) and owns what it follows: a `sync` of one of
    /// them elsewhere is busy, naming the follow's session.
    @Test func aFollowSeesAFeedAddedElsewhereAndOwnsWhatItFollows() async throws {
        let server = try await PythonServer.streams()
        let session = try await StoreSession.onPostgres()
        try await session.add("ev", server.base + "/sse?count=2&hold=60", kind: "sse")
        let follow = try Feedcli.start(Feedcli.onStore(session.state, ["follow", "--jsonl", "--max-time", "20s"]))
        // Owned once it prints (it owns a feed before it connects): a sync of the stream from
        // another machine is then busy. (While a delivery holds the feed's lock, a sync may find
        // the feed busy otherwise: asked again.)
        for _ in 0..<200 where JSONLines.ids(follow.stdoutSoFar).count < 2 {
            try await Task.sleep(for: .milliseconds(50))
        }
        let followed = "ev is followed by a feedcli follow (PostgreSQL backend"
        var busy = try await session.run(["sync", "ev", "--wait", "1", "--jsonl"])
        for _ in 0..<20 where !busy.stderr.contains(followed) {
            try await Task.sleep(for: .milliseconds(200))
            busy = try await session.run(["sync", "ev", "--wait", "1", "--jsonl"])
        }
        #expect(busy.status == 75 && busy.stderr.contains(followed), "\(busy.stderr)")
        #expect(busy.stdout.isEmpty)
        let added = Date()
        try await session.add("late", server.base + "/polled/late?per=1&max=1", kind: "linked")
        var seen = false
        for _ in 0..<150 where !seen {
            seen = (try await session.requireStatus("late")["entries"] as? Int ?? 0) > 0
            if !seen { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(seen && Date().timeIntervalSince(added) < 6, "followed within seconds of its adding")
        follow.process.send(SIGTERM)
        let run = await follow.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Set(JSONLines.ids(run.stdout)) == ["1", "2", "late-1"], "\(run.stdout)")
    }

    @Test func fortyConcurrentNextOnFortyMachinesDeliverEachEntryOnceInTotal() async throws {
        let server = try PostsServer(available: 40)
        let session = try await StoreSession.onPostgres()
        try await session.add("p", server.url, kind: "indexed")
        // Each `next` finds nothing unread and fetches the next post under the feed's lock.
        let runs = try await (0..<40).map { _ in
            try Feedcli.start(Feedcli.onStore(session.state, ["next", "p", "--json"]))
        }.asyncMap { await $0.finish() }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr).filter { !$0.isEmpty })")
        let ids = runs.compactMap { ($0.json as? [String: Any])?["id"] as? String }.compactMap(Int.init).sorted()
        #expect(ids == Array(1...40))
        let status = try await session.requireStatus("p")
        #expect(status["entries"] as? Int == 40 && status["unread"] as? Int == 0)
    }

    @Test func concurrentSyncsOfAGrowingFeedStoreAndPrintEveryEntryOnce() async throws {
        let server = try PostsServer(available: 0)
        let session = try await StoreSession.onPostgres()
        try await session.add("p", server.url, kind: "indexed")
        var started: [Feedcli.Started] = []
        for available in [10, 25, 40] {
            server.setAvailable(available)
            for _ in 0..<3 {
                started.append(try Feedcli.start(Feedcli.onStore(session.state, ["sync", "p", "--jsonl"])))
            }
        }
        let runs = await started.asyncMap { await $0.finish() }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr).filter { !$0.isEmpty })")
        // One more, after all of them: whatever the last of them had not seen yet.
        let last = try await session.feedcli("sync", "p", "--jsonl")
        let printed = (runs + [last]).flatMap { JSONLines.ids($0.stdout) }.compactMap(Int.init)
        #expect(printed.sorted() == Array(1...40), "each entry printed once, none missed")
        #expect(try await session.requireStatus("p")["entries"] as? Int == 40)
    }

    @Test func twoPollersWithSkipBusyFetchEachFeedOnce() async throws {
        let requests = Locked([String: Int]())
        let gate = RequestGate()
        gate.hold(from: 1)
        let server = try LoopbackServer { request, connection in
            requests.withLock { $0[request.path, default: 0] += 1 }
            gate.arrive()
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            connection.respond(
                200, headers: [("Content-Type", "application/json")], text: #"[{"id":"\#(name)","title":"\#(name)"}]"#)
        }
        let session = try await StoreSession.onPostgres()
        let names = (1...20).map { String(format: "f%02d", $0) }
        for name in names { try await session.add(name, server.baseURL + "/" + name, kind: "linked") }
        let first = try Feedcli.start(
            Feedcli.onStore(session.state, ["sync", "--skip-busy", "--jobs", "20", "--jsonl"]))
        // The first poller holds every feed (its requests are held by the server): the database
        // shows its 20 advisory locks.
        let admin = try PostgresConnection.connect(url: session.state, timeout: .seconds(10))
        var held = 0
        for _ in 0..<2_000 where held < 20 {
            held =
                try admin.execute(
                    """
                    SELECT COUNT(*)::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted
                        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """
                )
                .firstInteger().map(Int.init) ?? 0
            // Polled (the server's lock table sends no signal), without holding a thread.
            if held < 20 { try? await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(held == 20)
        let second = try await Feedcli.run(Feedcli.onStore(session.state, ["sync", "--skip-busy", "--jsonl", "-v"]))
        #expect(second.status == 0 && second.stdout.isEmpty, "\(second.stderr)")
        for name in names { #expect(second.stderr.contains("\(name): another run is syncing it"), "\(second.stderr)") }
        gate.open()
        let done = await first.finish()
        #expect(done.status == 0, "\(done.stderr)")
        #expect(JSONLines.ids(done.stdout).sorted() == names)
        #expect(
            requests.withLock { $0 } == Dictionary(uniqueKeysWithValues: names.map { ("/" + $0, 1) }),
            "each feed fetched by one poller")
    }

    @Test func aRunKilledMidWalkLeavesItsCommitsAndTheNextRunGoesOn() async throws {
        let (session, walk, gate, server) = try await Self.walkHeldAtItsThirdPage()
        defer { withExtendedLifetime(server) {} }
        kill(walk.process.processIdentifier, SIGKILL)
        _ = await walk.finish()
        #expect(walk.process.terminationReason == .uncaughtSignal)
        let committed = await JSONLines.ids(try session.feedcli("list", "l", "--jsonl").stdout)
        gate.open()
        let again = try await session.feedcli("sync", "l", "--jsonl")
        #expect(again.status == 0, "\(again.stderr)")
        let printedAgain = JSONLines.ids(again.stdout)
        #expect(Set(printedAgain).isDisjoint(with: committed), "nothing committed is printed again")
        #expect(Set(committed + printedAgain) == Set((1...20).map(String.init)), "nothing lost")
        #expect(try await session.requireStatus("l")["entries"] as? Int == 20)
    }

    @Test func anInterruptedSyncCommitsWhatItPrintedAndTheNextRunTheRest() async throws {
        let (session, walk, gate, server) = try await Self.walkHeldAtItsThirdPage()
        defer { withExtendedLifetime(server) {} }
        kill(walk.process.processIdentifier, SIGTERM)
        let stopped = await walk.finish()
        #expect(stopped.status == 130, "\(stopped.stderr)")
        gate.open()
        let committed = await JSONLines.ids(try session.feedcli("list", "l", "--jsonl").stdout)
        #expect(Set(committed) == Set(JSONLines.ids(stopped.stdout)), "committed is exactly what was printed")
        let again = try await session.feedcli("sync", "l", "--jsonl")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Set(committed + JSONLines.ids(again.stdout)) == Set((1...20).map(String.init)))
        #expect(Set(committed).isDisjoint(with: JSONLines.ids(again.stdout)))
    }

    @Test func withoutAServerACommandFailsWith74AndLibpqsReasonShowingNoPassword() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let url = "postgresql://feedcli:hunter2@127.0.0.1:\(refusing.port)/feedcli"
        for command in [["next"], ["list"], ["feeds", "add", "x", "http://127.0.0.1:1/x", "--kind", "linked"]] {
            let run = try await Feedcli.run(command + ["--state", url])
            #expect(run.status == 74, "\(command): \(run.stderr)")
            #expect(
                run.stderr.contains("Connection refused") && run.stderr.contains("feedcli:***@127.0.0.1"),
                "\(run.stderr)")
            #expect(!run.stderr.contains("hunter2") && !run.stdout.contains("hunter2"))
        }
    }

    @Test func aReadingCommandOnADatabaseWithoutTheSchemaCreatesNothing() async throws {
        let url = try await PostgresDatabases.fresh()
        let listed = try await Feedcli.run(["feeds", "list", "--state", url])
        #expect(listed.status == 0 && listed.stdout.contains("posts"), "the built-in feed is shown: \(listed.stderr)")
        let admin = try PostgresConnection.connect(url: url, timeout: .seconds(10))
        #expect(try !PostgresSchema.exists(admin), "no schema was created by reading")
    }

    /// Shell completion reads feed names from a store in PostgreSQL as from a file, and from a
    /// database without the schema completes nothing and creates nothing.
    @Test func completionOffersTheFeedNamesOfAStoreInPostgreSQL() async throws {
        let session = try await StoreSession.onPostgres()
        try await session.add("fireball", "http://127.0.0.1:9/feed.json", kind: "linked")
        try await session.add("other", "http://127.0.0.1:9/other.json", kind: "linked")
        let offered = try await Feedcli.run([
            "---completion", "next", "--", "positional@0", "2", "1", "feedcli", "next", "f",
            "--state", session.state,
        ])
        #expect(offered.stdout.split(separator: "\n") == ["fireball"], "\(offered.stderr)")
        let empty = try await PostgresDatabases.fresh()
        let none = try await Feedcli.run([
            "---completion", "list", "--", "positional@0", "2", "0", "feedcli", "list", "", "--state", empty,
        ])
        #expect(none.stdout.isEmpty)
        #expect(
            try !PostgresSchema.exists(PostgresConnection.connect(url: empty, timeout: .seconds(10))),
            "no schema created")
    }

    @Test func libpqIsLoadedOnlyForAStoreInPostgreSQL() async throws {
        let session = StoreSession()
        let onFile = try await Feedcli.run(["list", "--state", session.state], environment: ["LD_DEBUG": "files"])
        #expect(!onFile.stderr.contains("libpq"), "a SQLite store never loads libpq")
        let onDatabase = try await Feedcli.run(
            ["list", "--state", try PostgresDatabases.fresh()], environment: ["LD_DEBUG": "files"])
        #expect(onDatabase.stderr.contains("libpq.so.5"))
    }

    @Test func aStoreCopiedBothWaysKeepsEveryEntryAndReadMark() async throws {
        let server = try PostsServer(available: 30)
        let file = StoreSession()
        try await file.add("p", server.url, kind: "indexed")
        #expect(try await file.feedcli("sync", "p").status == 0)
        for _ in 0..<5 { _ = try await file.feedcli("next", "p") }
        let database = try await PostgresDatabases.fresh()
        let copied = try await Feedcli.run(["store", "copy", file.state, database])
        #expect(copied.status == 0 && copied.stdout.isEmpty, "\(copied.stderr)")
        let back = StoreSession()
        #expect(try await Feedcli.run(["store", "copy", database, back.state]).status == 0)
        for session in [StoreSession(state: database), back] {
            #expect(try await session.feedcli("list", "--jsonl").stdout == file.feedcli("list", "--jsonl").stdout)
            let status = try await session.requireStatus("p")
            #expect(
                status["entries"] as? Int == 30 && status["unread"] as? Int == 25 && status["next_index"] as? Int == 31)
            // The copy goes on where the original was: the next entry is the sixth.
            #expect(JSONLines.ids(try await session.feedcli("next", "p", "--jsonl").stdout) == ["6"])
        }
        let refused = try await Feedcli.run(["store", "copy", file.state, database])
        #expect(refused.status == 64 && refused.stderr.contains("not empty"), "\(refused.stderr)")
    }

    /// A store URL whose password holds `?`, `#` and a space (libpq accepts it) is shown masked
    /// in every message; it was shown in clear.
    @Test func aStoreURLsPasswordIsNeverShownWhateverItHolds() async throws {
        let url = "postgresql://r2:ab?cd#ef gh@127.0.0.1:1/feedcli"
        for arguments in [["status"], ["list"], ["next"]] {
            let run = try await Feedcli.run(arguments + ["--state", url])
            #expect(run.status != 0)
            #expect(
                !run.stderr.contains("cd#ef") && !run.stderr.contains("ef gh") && run.stderr.contains("r2:***@"),
                "\(run.stderr)")
        }
    }

    @Test func aServerStoppedMidRunIs75AndTheNextRunAfterItsRestartGoesOn() async throws {
        // A cluster of this test's own: stopping the shared one would fail every other test.
        let cluster = try await PrivateCluster.start()
        defer { cluster.remove() }
        let gate = RequestGate()
        gate.hold(from: 2)
        let server = try Self.fourPages(gate)
        let session = StoreSession(state: cluster.url)
        try await session.add("l", server.baseURL + "/l", kind: "linked")
        let walk = try Feedcli.start(Feedcli.onStore(session.state, ["sync", "l", "--jsonl"]))
        #expect(await gate.waitForArrivals(2))
        await cluster.run("halt")
        gate.open()
        let cut = await walk.finish()
        #expect(cut.status == 75, "a lost connection is temporary: \(cut.stderr)")
        #expect(cut.stderr.contains("connection"), "\(cut.stderr)")
        let down = try await session.feedcli("next", "l")
        #expect(down.status == 74, "no server answers: \(down.stderr)")
        await cluster.run("resume")
        let again = try await session.feedcli("sync", "l", "--jsonl")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await session.requireStatus("l")["entries"] as? Int == 20, "nothing lost, nothing half-done")
        #expect(Set(JSONLines.ids(cut.stdout) + JSONLines.ids(again.stdout)) == Set((1...20).map(String.init)))
    }
}
