import CSQLite
import FeedStoreContract
import FoundationEssentials
import Glibc

/// The bound on the store's write-ahead journal (`-wal`): at most a few MiB once any command has
/// closed the store, whatever came before, so no short command pays for an earlier big one.
///
/// Why it needs a policy: the journal does not shrink by itself. A big transaction (a sync of a
/// 300,000-item page) grows it to tens of MiB, and SQLite's automatic checkpoints copy its pages
/// back into the store but leave the file, and its frames, in place. The store is opened without
/// a checkpoint at close (a `next` would pay one, with its fsyncs, every run), so every later
/// process is the first to open the store, rebuilds the journal's index by reading every frame,
/// and copies them all back again at its first checkpoint.
///
/// The policy, from SQLite's own tools:
/// - `journal_size_limit` on every writing connection: whenever SQLite restarts the journal
///   (after a complete checkpoint) it truncates a longer file to `sizeLimit`, which is above the
///   length checkpoints keep it to (`JournalCheckpointer.boundFrames`): a restart inside a run
///   then reuses the file rather than freeing its blocks (an `ftruncate` of tens of MiB held a
///   fast `follow` for 80 ms) and allocating them again;
/// - at close, a journal longer than `closeThreshold`, or holding more than `framesThreshold`
///   frames of the current generation, is checkpointed with `TRUNCATE` (every frame copied back,
///   the file cut to zero bytes). The frame count matters because the next process to open the
///   store reads every frame of the current generation to rebuild the journal's index, however
///   long the file: a sync committing in batches leaves a 4 MiB file full of them. Short runs find
///   few frames and pay one `stat` and one small read of the `-shm`; the run after a big sync, or
///   the first run of a newer feedcli on a store whose journal an older one let grow, pays the
///   checkpoint once. Another process reading at that moment makes the checkpoint give up after
///   `busyWait`; the next run to close does it.
///
/// A run killed before its close leaves the journal as it was: every committed transaction is in
/// it, and the next run's close bounds it.
package enum StoreJournal {
    /// The longest journal a closing run leaves in place (the contract: at most 8 MiB after any
    /// command); a longer one held a big transaction or a fast stream's commits.
    package static let closeThreshold: Int64 = 6 * 1024 * 1024
    /// Frames of the current generation (each a 4 KiB page) that the next process to open the
    /// store would read to rebuild the journal's index: about 1 MiB.
    package static let framesThreshold: UInt32 = 256
    /// The size a restarted journal is cut to (`PRAGMA journal_size_limit`): what the bound on
    /// checkpoints lets it reach (frames of a 4 KiB page and a 24-byte header), and a margin.
    package static let sizeLimit = Int(JournalCheckpointer.boundFrames + 1000) * 4120
    /// How long the closing checkpoint waits for another process's reader or writer.
    package static let busyWait: Int32 = 200

    /// The journal's size in bytes beside the store at `path`; 0 when it has none.
    package static func size(besideStoreAt path: String) -> Int64 {
        var info = stat()
        guard stat(path + "-wal", &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// The frames of the journal's current generation, from the `-shm` file's index header
    /// (`mxFrame`, a native-endian 32-bit field at offset 16: SQLite's documented WAL-index
    /// format); 0 when there is none or it cannot be read. A heuristic: read without a lock.
    package static func frames(besideStoreAt path: String) -> UInt32 {
        let descriptor = open(path + "-shm", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var frames: UInt32 = 0
        guard pread(descriptor, &frames, 4, 16) == 4 else { return 0 }
        return frames
    }

    /// Sets the journal's size limit on a connection that writes.
    package static func limit(_ connection: SQLiteConnection) throws(SQLiteError) {
        try connection.execute("PRAGMA journal_size_limit = \(sizeLimit)")
    }

    /// Checkpoints and truncates the journal of the store at `path` when it is over the
    /// threshold; returns whether it did. Best effort: a busy store keeps its journal for a later run.
    @discardableResult
    package static func bound(_ connection: SQLiteConnection, storeAt path: String) -> Bool {
        guard size(besideStoreAt: path) > closeThreshold || frames(besideStoreAt: path) > framesThreshold else {
            return false
        }
        connection.checkpointer?.waitUntilIdle()  // its passive checkpoint would make this one wait
        connection.resetStatements()  // a statement left mid-read would hold the journal open
        sqlite3_busy_timeout(connection.handle, busyWait)
        return sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil) == SQLITE_OK
    }
}
