import CSQLite
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedBase
@testable import FeedCore
@testable import FeedHTTP
@testable import FeedReactor
@testable import FeedStore

/// The code's own contracts: every caller of `shutdown` waits for curl's
/// clean-up, the SQLite layer refuses a wrong number of arguments, and a NULL in a required
/// column is a damaged store, never an empty value.
@Suite("The code's own contracts", .timeLimit(.minutes(3)))
struct CodeContractTests {
    @Test func everyCallerOfShutdownWaitsForTheCleanUp() async throws {
        let requested = TestSignal()
        let server = try LoopbackServer { _, connection in
            requested.signal()
            connection.waitForPeerClose(limit: .seconds(5))
        }
        let client = try HTTPClient()
        // The transfer's observer runs on the worker thread: told of the shutdown, it waits
        // until every caller has arrived, so the clean-up after it is still to come while they
        // call (no sleep: the observer waits for the callers, not for a time).
        let arrived = DispatchSemaphore(value: 0)
        let subscription = client.get(
            HTTPRequest(url: server.baseURL + "/slow", timeout: .seconds(30), maxBodySize: 1024)
        )
        .subscribe { event in
            guard case .failed = event else { return }
            for _ in 0..<8 { _ = arrived.wait(timeout: .now() + 10) }
        }
        #expect(await requested.wait(seconds: 5), "the transfer is running")
        let finishedWhenReturned = Locked<[Bool]>([])
        let returned = TestSignal()
        for _ in 0..<8 {  // threads of their own: a pool as wide as the cores would run two at a time
            Thread.detachNewThread {
                arrived.signal()
                client.shutdown()
                let done = client.hasShutDown
                finishedWhenReturned.withLock { $0.append(done) }
                returned.signal()
            }
        }
        for _ in 0..<8 { _ = await returned.wait(seconds: 30) }
        #expect(
            finishedWhenReturned.value == Array(repeating: true, count: 8), "no caller returns before the clean-up ends"
        )
        subscription.dispose()
    }

    @Test func aWrongNumberOfArgumentsIsRefused() throws {
        let connection = try SQLiteConnection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let statement = try connection.statement("SELECT ?, ?")
        #expect(throws: SQLiteError.self) { try statement.run([.integer(1)]) }
        #expect(throws: SQLiteError.self) { try statement.run([.integer(1), .integer(2), .integer(3)]) }
        try statement.run([.integer(1), .null])
    }

    @Test func aNullInARequiredColumnIsADamagedStore() async throws {
        let server = try LoopbackServer { _, connection in connection.respond(200, text: #"[{"id":"1","title":"t"}]"#) }
        let session = StoreSession()
        try await session.add("l", server.baseURL + "/items", kind: "linked")
        #expect(try await session.feedcli("sync", "l").status == 0)
        // A hand-edited store: the entry table rebuilt without its NOT NULL constraints, then a
        // required column emptied.
        let edit = try await Feedcli.shell(
            #"""
            python3 -c '
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA foreign_keys = OFF")
            columns = [row[1] for row in db.execute("PRAGMA table_info(entry)")]
            db.execute("CREATE TABLE loose (" + ", ".join(columns) + ")")
            db.execute("INSERT INTO loose SELECT * FROM entry")
            db.execute("DROP TABLE entry")
            db.execute("ALTER TABLE loose RENAME TO entry")
            db.execute("UPDATE entry SET source = NULL")
            ' "$S"
            """#, environment: ["S": session.state])
        #expect(edit.status == 0, "\(edit.stderr)")
        let list = try await session.feedcli("list", "--jsonl")
        #expect(list.status == 74, "\(list.stdout) \(list.stderr)")
        #expect(list.stderr.contains("column source is empty"), "\(list.stderr)")
    }
}

/// FeedCore and the CLI are built on FoundationEssentials (each file imports it): a file that imports
/// full Foundation links it, ICU data and all, into the release binary (this release's first
/// bench build went from 33 MB to 83 MB and `next` paid for the larger image at every start).
@Suite("What the binary links")
struct LinkedFoundationTests {
    @Test func noSourceFileImportsFullFoundation() throws {
        let sources = Fixtures.root.deletingLastPathComponent().appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.allObjects.compactMap { $0 as? String } ?? []
        var offenders: [String] = []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            if text.split(separator: "\n").contains(where: { $0 == "import Foundation" }) { offenders.append(file) }
        }
        #expect(offenders.isEmpty, "import FoundationEssentials instead: \(offenders)")
        #expect(files.count > 50)
    }
}
