import FeedStoreContract
import FoundationEssentials

/// SQLite's busy handler on a `FeedLock.WaitingClock`: while another connection holds the store,
/// SQLite asks again after each pause, up to `limit` in all; then the statement fails with
/// `SQLITE_BUSY` (a temporary failure, 75).
///
/// `sqlite3_busy_timeout` does the same with SQLite's own sleeps, which no test can see; on the
/// waiting clock a test runs a wait of any length at once and sees every pause (the same clock
/// as the feeds' lock files, so `--wait` means one thing everywhere).
///
/// Threading: called by SQLite on the thread that runs the statement; a connection is used by
/// one thread at a time (`SQLiteDatabase`), so `start` needs no lock.
final class SQLiteBusyWait {
    /// SQLite's own schedule (`sqliteDefaultBusyCallback`): short pauses first, then 100 ms.
    static let pauses: [Duration] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100].map { .milliseconds($0) }

    let limit: Duration
    let clock: FeedLock.WaitingClock
    private var start: Duration = .zero

    init(limit: Duration, clock: FeedLock.WaitingClock) {
        self.limit = limit
        self.clock = clock
    }

    /// Whether SQLite should try again; `attempt` counts from 0 within one busy spell.
    func retry(attempt: Int32) -> Bool {
        let now = clock.elapsed()
        if attempt <= 0 { start = now }
        let waited = now - start
        guard waited < limit else { return false }
        let pause = Self.pauses[min(Int(max(attempt, 0)), Self.pauses.count - 1)]
        clock.pause(min(pause, limit - waited))
        return true
    }
}
