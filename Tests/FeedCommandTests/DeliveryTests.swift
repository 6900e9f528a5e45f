import FeedBase
import FeedCore
import FeedKinds
import FeedModel
import FeedReactor
import FeedReactorTesting
import FeedRendering
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTerminal
import FeedTesting
import Foundation
import Testing

/// The output boundary, in process: nothing unprinted is committed, a failed write stops the run
/// with 74 and says what was delivered, and an interruption at any step leaves every entry
/// printed and committed, or neither.
@Suite("Delivery at the output boundary", .serialized, .timeLimit(.minutes(3)))
struct DeliveryTests {
    let linked: PagedServer
    let posts: PostsServer

    init() throws {
        linked = try PagedServer(kind: .linked, count: 10, pageSize: 10)
        posts = try PostsServer(available: 6)
    }

    /// A store with feeds `l` (linked, 10 items) and `p` (indexed, 6 posts), and a context on it.
    func context(stdout: any OutputSink, stderr: BufferSink = BufferSink(), format: OutputFormat = .jsonl) async
        -> CommandContext
    {
        var fetch = FetchOptions()
        fetch.retries = 0
        let context = CommandContext(
            statePath: temporaryStorePath(), fetch: fetch, format: format, stdout: stdout,
            stderr: stderr)
        #expect(await runCommand(FeedsAdd.self, ["l", linked.url, "--kind", "linked"], context) == 0)
        #expect(await runCommand(FeedsAdd.self, ["p", posts.url, "--kind", "indexed"], context) == 0)
        return context
    }

    func stored(_ context: CommandContext, feed: String) throws -> [(id: String, read: Bool)] {
        var entries: [(String, Bool)] = []
        try FeedStore.open(at: context.statePath).forEachEntry(feed: feed, unreadOnly: false, limit: nil) {
            entries.append(($0.id, $0.read))
            return true
        }
        return entries
    }

    func printedIDs(_ output: String) -> [String] { JSONLines.ids(output) }

    @Test func aDiskThatFillsUpMidSyncCommitsExactlyWhatWasPrinted() async throws {
        let full = BufferSink()
        #expect(await runCommand(Sync.self, ["l"], context(stdout: full)) == 0)
        let lines = full.text.split(separator: "\n", omittingEmptySubsequences: false)
        let capacity = lines.prefix(3).map { $0.utf8.count + 1 }.reduce(0, +) + 10  // 3 lines and a bit of the 4th

        let disk = BufferSink(capacity: capacity, errorNumber: ENOSPC)
        let stderr = BufferSink()
        var run = await context(stdout: disk, stderr: stderr)
        // l's block first, so the disk fills inside it (feeds in flight together may print p's first).
        run.fetch.jobs = 1
        #expect(await runCommand(Sync.self, ["l", "p"], run) == 74)
        #expect(printedIDs(disk.text) == ["1", "2", "3"])
        #expect(try stored(run, feed: "l").map(\.id) == ["1", "2", "3"], "only what was printed is committed")
        #expect(try stored(run, feed: "p").isEmpty, "the run stopped: later feeds are not fetched")
        #expect(
            stderr.text == "feedcli: cannot write to stdout (No space left on device): 3 of 10 new entries of l "
                + "were printed and stored; the other 7 come again with the next sync\n")

        let rest = BufferSink()
        var again = run
        again.stdout = rest
        #expect(await runCommand(Sync.self, ["l"], again) == 0)
        #expect(printedIDs(rest.text) == (4...10).map(String.init), "the next sync delivers the rest, once")
    }

    @Test(arguments: [EBADF, EIO, EPIPE])
    func everyKindOfWriteFailureStopsTheRunWith74(errorNumber: Int32) async throws {
        let stderr = BufferSink()
        let run = await context(stdout: BufferSink(capacity: 0, errorNumber: errorNumber), stderr: stderr)
        #expect(await runCommand(Sync.self, [], run) == 74)
        #expect(try stored(run, feed: "l").isEmpty && stored(run, feed: "p").isEmpty)
        #expect(stderr.text.contains("cannot write to stdout (\(String(cString: strerror(errorNumber))))"))
        #expect(stderr.text.contains(": 0 of "))
    }

    @Test func nextMarksReadOnlyWhatItPrinted() async throws {
        let stderr = BufferSink()
        let failing = await context(stdout: BufferSink(capacity: 0), stderr: stderr, format: .plain)
        #expect(await runNext(feed: "p", failing) == 74, "a fetched post")
        #expect(try stored(failing, feed: "p").isEmpty, "not stored as read, so the next run fetches it again")
        #expect(stderr.text.contains("cannot write to stdout (No space left on device): the entry was not stored"))

        #expect(
            await runCommand(
                Sync.self, ["l"],
                {
                    var c = failing
                    c.stdout = BufferSink()
                    return c
                }()) == 0)
        #expect(await runNext(feed: "l", failing) == 74, "a stored unread entry")
        #expect(try stored(failing, feed: "l").allSatisfy { !$0.read })
        #expect(stderr.text.contains("the entry l/1 was not marked read"))

        let out = BufferSink()
        var working = failing
        working.stdout = out
        #expect(await runNext(feed: "l", working) == 0)
        #expect(out.text.hasPrefix("[@") && out.text.contains(" l] post 1\n"), "the same entry comes again")
        #expect(try stored(failing, feed: "l").first?.read == true)
    }

    /// Runs `command` once per step of a full run, interrupting at that step, and checks that
    /// every entry is printed and committed, or neither.
    func interruptingAtEveryStep(
        _ command: (CommandContext) async -> Int32,
        check: (_ printed: [(feed: String, id: String)], _ context: CommandContext) throws -> Void
    ) async throws {
        let steps = Locked<[RunStep]>([])
        var probe = await context(stdout: BufferSink())
        probe.onStep { step in steps.withLock { $0.append(step) } }
        #expect(await command(probe) == 0)
        let all = steps.value
        #expect(all.count >= 4, "\(all)")
        for index in all.indices {
            let stdout = BufferSink()
            var run = await context(stdout: stdout)
            let interruption = Interruption()
            let seen = Locked(0)
            run.interruption = interruption
            run.onStep { _ in
                if seen.withLock({ count in
                    defer { count += 1 }
                    return count == index
                }) {
                    interruption.trigger()
                }
            }
            #expect(await command(run) == 130, "interrupted at \(all[index]) (step \(index))")
            let printed = JSONLines.objects(stdout.text).compactMap { object -> (feed: String, id: String)? in
                guard let feed = object["feed"] as? String, let id = object["id"] as? String else { return nil }
                return (feed, id)
            }
            try check(printed, run)
        }
    }

    @Test func syncInterruptedAtEveryStepPrintsAndCommitsTogether() async throws {
        try await interruptingAtEveryStep({ await runCommand(Sync.self, ["l", "p"], $0) }) { printed, run in
            // Feeds run together (`--jobs`), so their blocks may come in either order; each
            // feed's own entries keep theirs.
            for feed in ["l", "p"] {
                let committed = try stored(run, feed: feed).map(\.id)
                #expect(printed.filter { $0.feed == feed }.map(\.id) == committed, "feed \(feed)")
            }
        }
    }

    @Test func nextInterruptedAtEveryStepPrintsAndMarksTogether() async throws {
        try await interruptingAtEveryStep({ context in await runNext(feed: "p", context) }) { printed, run in
            let read = try stored(run, feed: "p").filter(\.read).map(\.id)
            #expect(printed.map(\.id) == read)
        }
        // A stored unread entry.
        try await interruptingAtEveryStep({ context in
            var quiet = context
            quiet.stdout = BufferSink()
            quiet.reactorPorts = { ($0, $1) }
            quiet.interruption = Interruption()
            _ = await runCommand(Sync.self, ["l"], quiet)
            return await runNext(feed: "l", context)
        }) { printed, run in
            let read = try stored(run, feed: "l").filter(\.read).map(\.id)
            #expect(printed.map(\.id) == read)
        }
    }

    @Test func noStoreTransactionIsOpenWhilePrinting() async throws {
        let outcomes = Locked<[Bool]>([])
        var run = await context(stdout: BufferSink())
        let path = run.statePath
        run.onStep { step in
            guard step == .delivering else { return }
            // Another run (a person's, while cron's output waits on a slow reader) can write.
            let wrote =
                (try? FeedStore.open(at: path, wait: .zero).addFeed(
                    FeedRegistration(name: "x\(outcomes.value.count)", url: "http://127.0.0.1/", kind: .linked),
                    replace: false)) != nil
            outcomes.withLock { $0.append(wrote) }
        }
        #expect(await runCommand(Sync.self, ["l", "p"], run) == 0)
        #expect(!outcomes.value.isEmpty && outcomes.value.allSatisfy { $0 })
    }

    @Test func storeWorkAndPrintingNeverRunOnTheCurlThread() async throws {
        let threads = Locked<Set<String>>([])
        var run = await context(stdout: BufferSink())
        run.onStep { _ in threads.withLock { _ = $0.insert(Thread.current.name ?? "") } }
        #expect(await runCommand(Sync.self, ["l", "p"], run) == 0)
        #expect(!threads.value.isEmpty && !threads.value.contains("feedcli.curl"))
    }

    @Test func readersStopQuietlyWhenTheReaderLeavesAndFailLoudlyOtherwise() async throws {
        let run = await context(stdout: BufferSink())
        #expect(await runCommand(Sync.self, ["l"], run) == 0)
        for (errorNumber, expected) in [(EPIPE, Int32(0)), (ENOSPC, 74), (EBADF, 74)] {
            for format in OutputFormat.allCases {
                let stderr = BufferSink()
                var reader = run
                reader.stdout = BufferSink(capacity: 20, errorNumber: errorNumber)
                reader.stderr = stderr
                reader.format = format
                #expect(await runCommand(List.self, [], reader) == expected)
                #expect(await runCommand(Show.self, ["3", "--feed", "l"], reader) == expected)
                #expect(await runCommand(Status.self, [], reader) == expected)
                #expect(stderr.text.isEmpty == (expected == 0), "\(stderr.text)")
            }
        }
    }
}

extension CommandContext {
    /// Tells `onStep` of each step of every reactor run through this context, as its store and
    /// output see them (`SteppingStore`, `SteppingOutput`).
    mutating func onStep(_ onStep: @escaping @Sendable (RunStep) -> Void) {
        reactorPorts = { store, output in (SteppingStore(store, onStep: onStep), SteppingOutput(output, onStep: onStep))
        }
    }
}
