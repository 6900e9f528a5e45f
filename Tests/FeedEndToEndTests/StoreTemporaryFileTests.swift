import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Storing a large group of entries touches no file but the store's own: SQLite keeps a
/// statement journal for a statement of several rows that may abort, and past 64 KiB that journal
/// is a temporary file (`/var/tmp/etilqs_…`) opened, written and removed at every commit, which
/// was most of the system time of a fast `follow`. strace shows the files opened.
@Suite("feedcli stores a large group without temporary files", .timeLimit(.minutes(2)))
struct StoreTemporaryFileTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace"))
    func aSyncOf500EntriesOfAKilobyteOpensNoTemporaryFile() async throws {
        let body = String(repeating: "x", count: 1_000)
        let posts = (1...500).reversed().map { #"{"id":\#($0),"title":"t\#($0)","body":"\#(body)"}"# }
        let server = try LoopbackServer { _, connection in
            connection.respond(200, text: "[" + posts.joined(separator: ",") + "]")
        }
        let session = StoreSession()
        try await session.add("p", server.baseURL + "/feed", kind: "linked")
        let folder = TestScratch.folder("temporary-files").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let run = try await Feedcli.shell(
            #"strace -f -e trace=open,openat -o "$D/trace" "$FEEDCLI" sync p --jsonl --state "$S" >/dev/null"#,
            environment: ["S": session.state, "D": folder])
        #expect(run.status == 0, "\(run.stderr)")
        let opened = try String(contentsOfFile: folder + "/trace", encoding: .utf8).split(separator: "\n")
        #expect(opened.contains { $0.contains(session.state) }, "the trace shows the store's own file")
        let temporary = opened.filter { $0.contains("etilqs_") }
        #expect(temporary.isEmpty, "SQLite wrote temporary files: \(temporary.prefix(2))")
        let stored = try await Feedcli.run(["status", "p", "--json", "--state", session.state])
        #expect(
            stored.stdout.contains(#""entries":500"#) || stored.stdout.contains(#""entries" : 500"#), "\(stored.stdout)"
        )
    }
}
