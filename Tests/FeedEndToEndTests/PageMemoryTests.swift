import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedKinds
@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// What a page costs to hold is its body and a few bytes an item, not a tree of its values nor
/// every entry it makes (a page of 1,000,000 tiny items peaked at 727 MB).
/// The peak for the largest page `--max-size` allows is measured by `scripts/bench.sh`; here a
/// smaller page checks that memory does not grow with the items.
@Suite("Memory does not grow with the page", .timeLimit(.minutes(3)))
struct PageMemoryTests {
    /// The peak resident memory of one feedcli run in KiB (Linux's `ru_maxrss`), and its status.
    static func peak(_ arguments: [String]) async throws -> (status: Int32, kib: Int) {
        let script = #"""
            import resource, subprocess, sys
            done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """#
        // Arguments here are feedcli's words and temporary paths: no single quotes in them.
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let run = try await Feedcli.shell(
            #"python3 -c "$SCRIPT" "$FEEDCLI" "# + quoted, environment: ["SCRIPT": script])
        let fields = run.stdout.split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard fields.count == 2 else { throw MeasureFailed(output: run.stdout + run.stderr) }
        return (Int32(fields[0]), fields[1])
    }

    /// How much more memory a feedcli run of `arguments` on `session`'s store peaks at than a
    /// start (`status` on the same store), in MiB, with the run's status.
    static func growth(running arguments: [String], on session: StoreSession) async throws -> (status: Int32, mib: Int)
    {
        let start = try await peak(Feedcli.onStore(session.state, ["status"]))
        let run = try await peak(Feedcli.onStore(session.state, arguments))
        return (run.status, (run.kib - start.kib) / 1024)
    }

    /// The contract's bound on a stream's memory: `--max-size` (its default, 16 MiB) plus a
    /// backlog of at most 64 MiB, in MiB.
    static let streamBound = 16 + 64

    struct MeasureFailed: Error {
        let output: String
    }

    /// How much more memory feedcli's sync of one page (served as `body`) peaks at than a
    /// start (`status` on the same store), in KiB, once the sync stored `entries` entries.
    static func growth(syncing body: String, kind: String, entries: Int) async throws -> Int {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: body) }
        let session = StoreSession()
        try await session.add("f", server.baseURL + "/page", kind: kind)
        let start = try await peak(Feedcli.onStore(session.state, ["status"]))
        let sync = try await peak(Feedcli.onStore(session.state, ["sync", "f", "--jsonl"]))
        #expect(start.status == 0 && sync.status == 0)
        #expect(try await session.status("f")?["entries"] as? Int == entries, "every item stored")
        return sync.kib - start.kib
    }

    /// 100,000 items of `{"id":N}` (1.2 MB) on one linked page: before, about 700 bytes an item
    /// above what feedcli needs to start (a tree of the page, an entry per item held to the end);
    /// now the spans, the ids seen and a batch of entries at a time.
    @Test func aPageOfManyItemsCostsLittleMoreThanItsBody() async throws {
        let count = 100_000
        let body = "[" + (1...count).reversed().map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]"
        let growth = try await Self.growth(syncing: body, kind: "linked", entries: count)
        #expect(growth < 40 * 1024, "the sync of \(count) items peaked \(growth / 1024) MiB above a start")
    }

    /// One item of 2,000,000 numbers (4 MB): a tree of them took about 27 times the item's
    /// bytes; only the fields a kind reads are built now, the rest is checked and kept as text.
    @Test func anItemOfMillionsOfValuesCostsItsBytes() async throws {
        let body =
            #"[{"id":1,"title":"fat","x":["# + Array(repeating: "1", count: 2_000_000).joined(separator: ",") + "]}]"
        let growth = try await Self.growth(syncing: body, kind: "linked", entries: 1)
        let kib = body.utf8.count / 1024
        #expect(growth < 8 * kib, "an item of \(kib) KiB peaked \(growth / 1024) MiB above a start")
    }

    /// A walk's new entries are made oldest first from its pages (newest first), whatever the
    /// pages hold, empty ones included.
    @Test func newEntriesAreMadeOldestFirstAcrossPages() {
        func page(_ ids: [String]) -> PageItems {
            PageItems(ids.map { FeedItem(id: $0, source: RawJSON(compactText: "{}")) })
        }
        let entries = NewEntries(
            pages: [page(["9", "8", "7"]), page([]), page(["6", "5"]), page([])],
            feed: "f", fetchedAt: "2026-11-25T00:00:00Z")
        #expect(entries.count == 5)
        #expect(entries.entries(0..<5).map(\.id) == ["5", "6", "7", "8", "9"])
        #expect(entries.entries(1..<3).map(\.id) == ["6", "7"])
        #expect(entries.entries(4..<5).map(\.id) == ["9"])
        #expect(entries.entries(0..<0).isEmpty)
        #expect(entries.entries(0..<1).first?.feed == "f")
        #expect(NewEntries(pages: [], feed: "f", fetchedAt: "t").entries(0..<0).isEmpty)
    }
}
