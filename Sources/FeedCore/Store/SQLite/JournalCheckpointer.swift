import CSQLite
import Dispatch
import FeedBase
import FeedStoreContract
import FoundationEssentials
import Synchronization

/// Copies the write-ahead journal back into the store on a thread of its own, so that the thread
/// that commits never waits for a checkpoint's page writes and its two `fdatasync`s.
///
/// Why: SQLite's automatic checkpoint runs inside the `COMMIT` that takes the journal past 1,000
/// frames, on the committing thread. For a fast `follow` that thread is the one that prints and
/// commits every entry, and a checkpoint every ~30 commits of 100 entries was a sixth of its
/// time, most of it waiting for the disk.
///
/// How: `sqlite3_wal_hook` (which replaces SQLite's automatic checkpoint) tells this object the
/// journal's length after every commit. From `backgroundFrames` on, a passive checkpoint is asked
/// of the thread, through a connection of its own (opened at the first request, so commands that
/// commit little never open it); a passive checkpoint never blocks a writer or a reader, and
/// SQLite keeps it crash-safe as its own. A journal that still grows past `inlineFrames` (commits
/// faster than the disk takes them back, or the thread's connection could not be opened: too few
/// descriptors) is checkpointed by the committing connection itself, as SQLite would have done:
/// from `inlineFrames` on when the thread is not checkpointing, from `boundFrames` on in any case
/// (after the thread's checkpoint): the journal stays bounded (`boundFrames` and what one commit
/// adds) whatever happens, and a fast `follow` pauses for a checkpoint's fsyncs a quarter as often
/// as SQLite's own automatic checkpoint made it, when most of its frames are already copied back.
///
/// Threading: `committed(frames:)` is called on the committing thread, inside SQLite, with the
/// connection's lock held (`SQLiteDatabase`); the checkpoints run on the thread this object
/// starts; `waitUntilIdle()` and `stop()` may be called from any thread other than that one.
package final class JournalCheckpointer: Sendable {
    /// The journal's length from which the thread is asked to copy it back (SQLite's own
    /// automatic checkpoint's).
    package static let backgroundFrames: Int32 = 1000
    /// The length from which the committing connection checkpoints by itself when the thread is
    /// not checkpointing (about 16 MiB): a journal restarts only after a checkpoint that nothing
    /// was committed during, which the thread's never is while commits come faster than its
    /// fsyncs.
    package static let inlineFrames: Int32 = 4000
    /// The length from which the committing connection checkpoints by itself in any case, after
    /// the thread's checkpoint under way (about 33 MiB): the journal's bound.
    package static let boundFrames: Int32 = 8000

    /// What the committing connection does after a commit.
    package enum Step: Equatable, Sendable {
        case nothing
        /// Asked of the thread: nothing to do here.
        case asked
        /// The committing connection checkpoints now.
        case checkpointHere
    }

    private struct State: Sendable {
        var asked = false
        var running = false
        var stopped = false
        var started = false
        /// The thread's connection could not be opened: every checkpoint is the committer's.
        var unavailable = false
        /// The journal's length at the last request: the next waits until it has grown by
        /// `backgroundFrames` more (or the journal has restarted), so that a journal that does not
        /// restart (commits follow each other too closely) is not checkpointed at every commit.
        var askedAt: Int32 = 0
    }

    private let path: String
    private let state = Mutex(State())
    /// Signalled once per request (and at `stop`); the thread waits on it.
    private let requests = DispatchSemaphore(value: 0)
    /// Signalled by the thread whenever it finishes a checkpoint or ends.
    private let idle = DispatchSemaphore(value: 0)

    /// For the store at `path` (resolved: the file the committing connection has open).
    package init(path: String) {
        self.path = path
    }

    /// After a commit that left `frames` frames in the journal: what the committer does.
    package func committed(frames: Int32) -> Step {
        guard frames >= Self.backgroundFrames else { return .nothing }
        let start = state.withLock { state -> (step: Step, start: Bool, signal: Bool) in
            if state.stopped || state.unavailable || frames >= Self.boundFrames {
                return (.checkpointHere, false, false)
            }
            // Not while the thread checkpoints: this one would give up, or wait for its fsyncs.
            if frames >= Self.inlineFrames, !state.running { return (.checkpointHere, false, false) }
            if frames < state.askedAt { state.askedAt = 0 }  // the journal restarted
            guard !state.asked, frames - state.askedAt >= Self.backgroundFrames else { return (.asked, false, false) }
            state.asked = true
            state.askedAt = frames
            defer { state.started = true }
            return (.asked, !state.started, true)
        }
        if start.start, DetachedThread.start(named: "feedcli-journal", { self.run() }) != nil {
            state.withLock { state in
                state.unavailable = true
                state.asked = false
            }
            return .checkpointHere
        }
        if start.signal { requests.signal() }
        return start.step
    }

    /// Returns once no checkpoint of the thread is under way (one asked for and not begun is
    /// dropped): before the store's closing checkpoint, which would otherwise wait for it.
    package func waitUntilIdle() {
        while true {
            let busy = state.withLock { state -> Bool in
                state.asked = false
                return state.running
            }
            guard busy else { return }
            idle.wait()
        }
    }

    /// Ends the thread (after a checkpoint under way); later commits checkpoint by themselves.
    package func stop() {
        let wasStarted = state.withLock { state -> Bool in
            state.stopped = true
            return state.started && !state.unavailable
        }
        guard wasStarted else { return }
        requests.signal()
        waitUntilIdle()
    }

    private enum Next { case checkpoint, wait, end }

    /// The thread: a connection of its own, then a passive checkpoint per request.
    private func run() {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE)
            _ = feed_sqlite_no_checkpoint_on_close(connection.handle)
            // A connection learns that the store is in WAL mode (and opens its journal) at its
            // first read; until then a checkpoint does nothing.
            try connection.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        } catch {
            state.withLock { state in
                state.unavailable = true
                state.asked = false
            }
            idle.signal()
            return
        }
        while true {
            requests.wait()
            let next = state.withLock { state -> Next in
                if state.stopped { return .end }
                guard state.asked else { return .wait }
                state.asked = false
                state.running = true
                return .checkpoint
            }
            if next == .end { break }
            guard next == .checkpoint else { continue }
            // Passive: copies what no reader still needs, waits for no one. A failure (the disk
            // full) leaves the journal as it is; the committer's own checkpoint meets it again.
            _ = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            state.withLock { $0.running = false }
            idle.signal()
        }
        idle.signal()
        withExtendedLifetime(connection) {}
    }
}
