import FeedModel
import FeedStoreContract
import FoundationEssentials
import Glibc

/// An exclusive lock between processes, held through `flock(2)` on a file.
///
/// The kernel releases it when the process ends however it ends (OOM kill, power loss, Ctrl-C),
/// so it never goes stale the way PID files do. Waiting polls every 20 ms up to the deadline;
/// call it from a thread that may block (not from Swift's cooperative pool).
public final class FeedLock: HeldFeedLock {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the lock at `path`, waiting at most `wait` (on `clock`). Throws `.temporary` when
    /// another process still holds it after that, `.storeAccess` when the lock file cannot be
    /// opened.
    public static func acquire(
        path: String, wait: Duration, holder: String, clock: WaitingClock = .live
    ) throws(FeedFailure) -> FeedLock {
        let descriptor = try openFile(path)
        let deadline = clock.elapsed() + wait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, clock.elapsed() < deadline else {
                close(descriptor)
                throw .temporary("\(holder) is busy in another feedcli run (waited \(wait.components.seconds) s)")
            }
            clock.pause(pollInterval)
        }
        return FeedLock(descriptor: descriptor)
    }

    /// How often a waiting `acquire` tries again.
    package static let pollInterval = LockWaitingClock.pollInterval

    public typealias WaitingClock = LockWaitingClock

    /// Takes the lock at `path` if no one holds it, without waiting; nil when someone does.
    /// Lets a caller take a free lock where it is and move to a thread that may block only
    /// when it has to wait.
    public static func attempt(path: String) throws(FeedFailure) -> FeedLock? {
        let descriptor = try openFile(path)
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return FeedLock(descriptor: descriptor)
    }

    /// Opens (creating) the lock file. Its folder is created (owner only) the first time it is
    /// missing, rather than looked up before every lock: a sync of 1,000 feeds takes 1,000 locks.
    private static func openFile(_ path: String) throws(FeedFailure) -> Int32 {
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == ENOENT {
            let folder = StoreFile.folder(of: path)
            try? FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else {
            throw .storeAccess("cannot open lock file \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
