import FeedModel
import FeedStoreContract
import FoundationEssentials
import Glibc

/// A feed's owner: the `follow` that holds it for its whole session, so that no other run
/// fetches it (and takes its new entries away from that follow's output). Apart from the feed's
/// own lock, which the follow takes only for a round or a commit, so that reading commands and
/// `feeds remove` wait for a commit at most, never for the session.
///
/// A file `flock(2)`ed exclusively while held, with the holder's words in it ("feedcli follow
/// (pid N)") for the message of the run it keeps out. It exists only while held (unlinked at
/// release), so a run that checks a feed no follow owns pays one failed `open`. An owner made
/// from a file another owner was unlinking at that moment is not one: after `flock`, the file
/// must still be the one at the path, else it is tried again.
final class FeedOwnerLock: HeldFeedLock {
    private let descriptor: Int32
    private let path: String
    private let release: @Sendable () -> Void

    private init(descriptor: Int32, path: String, release: @escaping @Sendable () -> Void) {
        self.descriptor = descriptor
        self.path = path
        self.release = release
    }

    /// The owner's lock at `path` when no other run holds it; nil when one does.
    static func attempt(path: String, holder: String, release: @escaping @Sendable () -> Void) throws(FeedFailure)
        -> FeedOwnerLock?
    {
        for _ in 0..<8 {
            var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            if descriptor < 0, errno == ENOENT {
                try? FileManager.default.createDirectory(
                    atPath: StoreFile.folder(of: path), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            }
            guard descriptor >= 0 else {
                throw .storeAccess("cannot open lock file \(path): \(String(cString: strerror(errno)))")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                return nil
            }
            var held = stat()
            var named = stat()
            guard fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino,
                held.st_dev == named.st_dev
            else {
                close(descriptor)  // unlinked by the owner before: a file no one checks
                continue
            }
            let words = Array(holder.utf8)
            _ = ftruncate(descriptor, 0)
            _ = words.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            return FeedOwnerLock(descriptor: descriptor, path: path, release: release)
        }
        return nil
    }

    /// The words of the run that owns the feed at `path`, nil when none does.
    static func owner(path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0 else { return nil }  // left by a run that died
        var buffer = [UInt8](repeating: 0, count: 200)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        let words = count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : ""
        return words.isEmpty ? "another feedcli run" : TerminalText.safe(words)
    }

    deinit {
        unlink(path)  // before the lock goes: a run that opens the path now finds no owner
        release()
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
