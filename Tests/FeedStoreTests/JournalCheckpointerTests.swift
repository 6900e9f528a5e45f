import CSQLite
import FeedStoreContract
import FeedStoreTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedStore

/// The journal is copied back into the store on a thread of its own (`JournalCheckpointer`): the
/// committing thread asks, the thread checkpoints, and the journal stays bounded whatever the
/// thread manages.
@Suite("the journal's checkpoints off the committing thread", .timeLimit(.minutes(3)))
struct JournalCheckpointerTests {
    @Test func asksTheThreadOncePerThousandFramesAndCheckpointsItselfOnlyPastTheBound() async throws {
        let path = temporaryStorePath()
        _ = try FeedStore.open(at: path)
        let checkpointer = JournalCheckpointer(path: path)
        defer { checkpointer.stop() }
        #expect(checkpointer.committed(frames: 10) == .nothing)
        #expect(checkpointer.committed(frames: JournalCheckpointer.backgroundFrames - 1) == .nothing)
        #expect(checkpointer.committed(frames: JournalCheckpointer.backgroundFrames) == .asked)
        checkpointer.waitUntilIdle()
        // Asked at 1,000 frames: a journal that did not restart is asked again 1,000 frames later,
        // not at every commit.
        #expect(checkpointer.committed(frames: 1500) == .asked)
        checkpointer.waitUntilIdle()
        #expect(
            checkpointer.committed(frames: JournalCheckpointer.inlineFrames) == .checkpointHere,
            "a long journal is checkpointed by the committer while the thread is idle, as SQLite's own would be")
        #expect(
            checkpointer.committed(frames: JournalCheckpointer.boundFrames) == .checkpointHere,
            "past the bound, in any case")
        checkpointer.stop()
        #expect(
            checkpointer.committed(frames: JournalCheckpointer.backgroundFrames) == .checkpointHere,
            "a stopped checkpointer leaves every checkpoint to the committer")
    }

    @Test func aThreadThatCannotOpenTheStoreLeavesTheCheckpointsToTheCommitter() async throws {
        let checkpointer = JournalCheckpointer(path: temporaryStorePath("missing") + "/no-such-folder/feedcli.sqlite")
        defer { checkpointer.stop() }
        #expect(checkpointer.committed(frames: JournalCheckpointer.backgroundFrames) == .asked)
        var step = JournalCheckpointer.Step.asked
        for _ in 0..<200 where step != .checkpointHere {
            try await Task.sleep(for: .milliseconds(10))
            step = checkpointer.committed(frames: 2 * JournalCheckpointer.backgroundFrames)
        }
        #expect(step == .checkpointHere)
    }

    @Test func aLongRunOfCommitsIsCheckpointedByTheJournalThreadAndTheJournalStaysBounded() async throws {
        let path = temporaryStorePath()
        let store = try FeedStore.open(at: path)
        try store.addFeed(FeedRegistration(name: "s", url: "http://127.0.0.1:9/s", kind: .graph), replace: false)
        var largestJournal: Int64 = 0
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        for batch in 0..<150 {
            let entries = (0..<100).map { Entry.sample("\(batch)-\($0)", feed: "s") }
            _ = try store.commitFetch(feed: "s", entries: entries, FetchCommit(fetchedAt: time))
            largestJournal = max(largestJournal, StoreJournal.size(besideStoreAt: path))
        }
        #expect(threadNames().contains("feedcli-journal"), "the checkpoints run on a thread of their own")
        // A frame is a 4 KiB page and its 24-byte header.
        #expect(
            largestJournal <= Int64(JournalCheckpointer.boundFrames + 200) * 4120,
            "the journal never grows past the bound (and what one commit adds)")
        store.boundJournal()
        #expect(StoreJournal.size(besideStoreAt: path) <= StoreJournal.closeThreshold)
        let reopened = try FeedStore.open(at: path, access: .readOnly)
        #expect(try reopened.feeds().first { $0.name == "s" }?.total == 15_000)
        #expect(try count(path) == 15_000)
        #expect(try integrityCheck(path) == "ok")
    }

    /// The names of this process's threads.
    private func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    private func count(_ path: String) throws -> Int64? {
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        return try connection.statement("SELECT COUNT(*) FROM entry WHERE feed = 's'").first([]) { $0.int64(0) }
    }

    private func integrityCheck(_ path: String) throws -> String? {
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        return try connection.statement("PRAGMA integrity_check").first([]) { $0.text(0) } ?? nil
    }
}
