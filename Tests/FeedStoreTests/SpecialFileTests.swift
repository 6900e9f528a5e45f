import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import FeedTesting
    import FeedStoreTesting
#endif

/// A store path (or its journal, shared memory or lock folder) that is not what a store's part
/// must be is refused at once with 74 and a message; feedcli never blocks opening it (a FIFO at `--state` used to hang `next`, `list` and `status` forever).
@Suite("Special files at the store's paths", .timeLimit(.minutes(3)))
struct SpecialFileTests {
    @Test(arguments: ["", "-wal", "-shm"])
    func aFIFOIsRefusedAtOnce(suffix: String) async throws {
        let session = StoreSession()
        if suffix.isEmpty {
            try FileManager.default.createDirectory(
                atPath: (session.state as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
        } else {
            #expect(try await session.feedcli("read", "--all").status == 0)  // a real store beside it
            _ = try? FileManager.default.removeItem(atPath: session.state + suffix)
        }
        #expect(mkfifo(session.state + suffix, 0o600) == 0)
        for command in [["next"], ["list"], ["status"], ["sync", "posts"], ["export", "--format", "atom"]] {
            // `timeout`: a hang (the old behaviour) ends as 124 instead of holding the suite.
            let run = try await Feedcli.shell(
                #"timeout 20 "$FEEDCLI" "# + command.joined(separator: " ") + #" --state "$S""#,
                environment: ["S": session.state])
            #expect(run.status == 74, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("is a FIFO, not a regular file"), "\(command): \(run.stderr)")
        }
    }

    @Test func aLockFolderThatIsAFileIsRefused() async throws {
        let session = StoreSession()
        #expect(try await session.feedcli("read", "--all").status == 0)  // creates the store
        _ = try? FileManager.default.removeItem(atPath: session.state + ".locks")
        #expect(FileManager.default.createFile(atPath: session.state + ".locks", contents: Data()))
        let run = try await session.feedcli("next")
        #expect(run.status == 74 && run.stderr.contains(".locks is a regular file, not a folder"), "\(run.stderr)")
    }
}
