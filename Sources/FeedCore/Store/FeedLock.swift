import Foundation

/// An exclusive lock between processes, held through `flock(2)` on a file.
///
/// The kernel releases it when the process ends however it ends (OOM kill, power loss, Ctrl-C),
/// so it never goes stale the way PID files do. Waiting polls every 20 ms up to the deadline;
/// call it from a thread that may block (not from Swift's cooperative pool).
public final class FeedLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the lock at `path`, waiting at most `wait`. Throws `.temporary` when another process
    /// still holds it after that, `.storeAccess` when the lock file cannot be opened.
    public static func acquire(path: String, wait: Duration, holder: String) throws(FeedFailure) -> FeedLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .storeAccess("cannot open lock file \(path): \(String(cString: strerror(errno)))")
        }
        let deadline = ContinuousClock.now + wait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(descriptor)
                throw .temporary("\(holder) is busy in another feedcli run (waited \(wait.components.seconds) s)")
            }
            usleep(20_000)
        }
        return FeedLock(descriptor: descriptor)
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
