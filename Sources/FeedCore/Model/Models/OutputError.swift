import FoundationEssentials
import Glibc

/// A write that did not complete: the disk is full (ENOSPC), the descriptor is closed (EBADF),
/// the device failed (EIO), or the reader went away (EPIPE).
public struct OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes of the failed write that did get out (for `writeUntilTaken`: written, though the reader may not have taken them).
    public var written: Int
    public var errorNumber: Int32

    public init(written: Int, errorNumber: Int32) {
        self.written = written
        self.errorNumber = errorNumber
    }

    /// The reader closed its end (`| head`): for `list`, `show` and `status` a quiet end.
    public var readerIsGone: Bool { errorNumber == EPIPE }

    public var description: String { String(cString: strerror(errorNumber)) }
}
