import FeedModel
import FoundationEssentials
import Glibc
import Synchronization

/// A file descriptor: stdout or stderr. SIGPIPE is ignored by the CLI, so a reader that has gone
/// shows up here as EPIPE rather than killing the process.
///
/// A write to a pipe succeeds as soon as the kernel buffers it, before the reader has read
/// anything: `sync | head -n 3` would otherwise see every entry "written" while `head` takes
/// three. For pipes, `writeUntilTaken` therefore writes one record at a time and watches the
/// pipe's unread byte count (Linux's `FIONREAD` works on the write end) until the reader has
/// taken it, has closed its end with bytes unread, or the run is interrupted: no timer decides
/// for the reader, however slow it is, and what it took before an interruption is known.
public final class FileDescriptorSink: OutputSink {
    private let descriptor: Int32
    /// One writer at a time, so blocks from different threads never interleave.
    private let writing = Mutex(())
    private let isPipe: Bool

    /// The descriptor was closed when the process started (`feedcli sync >&-`): every write
    /// fails with EBADF, and /dev/null holds the number so that no file opened later (the store!)
    /// can receive the output meant for it.
    private let wasClosed: Bool

    public init(descriptor: Int32) {
        self.descriptor = descriptor
        var info = stat()
        isPipe = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
        wasClosed = false
    }

    private init(standard descriptor: Int32) {
        self.descriptor = descriptor
        var info = stat()
        if fcntl(descriptor, F_GETFD) == -1, errno == EBADF {
            wasClosed = true
            let placeholder = open("/dev/null", O_RDWR | O_CLOEXEC)
            if placeholder >= 0, placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
        } else {
            wasClosed = false
        }
        isPipe = !wasClosed && fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    public static let standardInput = FileDescriptorSink(standard: STDIN_FILENO)
    public static let standardOutput = FileDescriptorSink(standard: STDOUT_FILENO)
    public static let standardError = FileDescriptorSink(standard: STDERR_FILENO)

    /// Claims the three standard descriptors before anything else opens a file; call first thing
    /// in `main`.
    public static func claimStandardDescriptors() {
        _ = (standardInput, standardOutput, standardError)
    }

    public var isTerminal: Bool { !wasClosed && isatty(descriptor) == 1 }

    /// `TIOCGWINSZ`'s height, else `$LINES`, when this is a terminal.
    public var rows: Int? {
        guard isTerminal else { return nil }
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 { return Int(size.ws_row) }
        return ProcessInfo.processInfo.environment["LINES"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// A regular file (`2>> feeds.err`): a log, whose lines should say when they were written.
    public var isRegularFile: Bool {
        var info = stat()
        return !wasClosed && fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// `TIOCGWINSZ`'s width, else `$COLUMNS`, when this is a terminal.
    public var columns: Int? {
        guard isTerminal else { return nil }
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    public func write(_ bytes: [UInt8]) throws(OutputError) {
        try write(bytes[...])
    }

    /// Writes `bytes` whole, starting with one write(2) of all of them; `OutputError.written`
    /// counts from `bytes`' start.
    private func write(_ bytes: ArraySlice<UInt8>) throws(OutputError) {
        if wasClosed { throw OutputError(written: 0, errorNumber: EBADF) }
        let failure = writing.withLock { _ -> OutputError? in
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    switch errno {
                    case EINTR: continue
                    case EAGAIN:  // a non-blocking descriptor inherited from the caller: wait until it drains
                        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&ready, 1, -1)
                        continue
                    default: return OutputError(written: offset - bytes.startIndex, errorNumber: errno)
                    }
                }
                offset += written
            }
            return nil
        }
        if let failure { throw failure }
    }
}

extension FileDescriptorSink {
    public func writeUntilTaken(_ bytes: [UInt8], boundaries: [Int], stop: (_ taken: Int) -> Bool) -> TakenReport {
        guard isPipe else {
            // A file or a terminal takes what is written: each record in a write(2) of its own,
            // so that a kill (SIGKILL of `follow >> log`) can cut the output only between
            // records, never inside a JSON line, and the next run's first line starts a line.
            var written = 0
            for end in boundaries.filter({ $0 > 0 && $0 < bytes.count }) + [bytes.count] where end > written {
                do throws(OutputError) {
                    try write(bytes[written..<end])
                } catch {
                    let total = written + error.written
                    return TakenReport(
                        taken: total, written: total,
                        failure: .output(OutputError(written: total, errorNumber: error.errorNumber)))
                }
                written = end
            }
            return TakenReport(taken: written, written: written)
        }
        return writing.withLock { _ in
            var offset = 0
            // One record at a time, each waited for: a reader that reads all there is (`head`
            // takes a whole buffer) can only take what it is about to see.
            var ends = boundaries.filter { $0 > 0 && $0 < bytes.count }
            ends.append(bytes.count)
            for end in ends {
                if let failure = writeRecord(bytes, from: &offset, to: end) {
                    return TakenReport(taken: max(0, offset - unread()), written: offset, failure: .output(failure))
                }
                let report = waitUntilTaken(offset, stop: stop)
                if report.failure != nil { return report }
            }
            return TakenReport(taken: offset, written: offset)
        }
    }

    /// Writes `bytes[offset..<end]` into the pipe once it has room, as much as its free room
    /// takes in each write(2) (a whole record when it fits: a kill then cannot cut it); nil when
    /// it all went in.
    private func writeRecord(_ bytes: [UInt8], from offset: inout Int, to end: Int) -> OutputError? {
        while offset < end {
            var room = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&room, 1, -1) > 0 else { continue }
            if room.revents & Int16(POLLERR | POLLHUP) != 0 { return OutputError(written: offset, errorNumber: EPIPE) }
            // POLLOUT promises room for PIPE_BUF bytes; the pipe's size less what is unread is
            // the room there is (this sink is the pipe's only writer), so neither blocks.
            let count = min(end - offset, max(Int(PIPE_BUF), pipeSize - unread()))
            let written = bytes[offset..<(offset + count)].withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress, $0.count)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return OutputError(written: offset, errorNumber: errno)
            }
            offset += written
        }
        return nil
    }

    /// The pipe's capacity (`F_GETPIPE_SZ`, 1032: Swift's Glibc leaves it out), PIPE_BUF when it
    /// cannot be told.
    private var pipeSize: Int {
        let size = fcntl(descriptor, 1032)
        return size > 0 ? Int(size) : Int(PIPE_BUF)
    }

    /// Bytes in the pipe the reader has not taken (0 when that cannot be told: as for a file).
    private func unread() -> Int {
        var unread: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &unread) == 0 ? max(0, Int(unread)) : 0
    }

    /// Waits until the reader has taken the `written` bytes just written (or stop, or leaves).
    private func waitUntilTaken(_ written: Int, stop: (_ taken: Int) -> Bool) -> TakenReport {
        Self.waitUntilTaken(written, unread: unread, readerLeft: readerLeft, stop: stop)
    }

    /// Whether the pipe's reader has closed its end.
    private func readerLeft() -> Bool {
        var reader = pollfd(fd: descriptor, events: 0, revents: 0)
        return poll(&reader, 1, 0) > 0 && reader.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// The wait, on the two looks at the pipe: how many bytes are `unread`, whether the reader
    /// has left. A reader seen gone is asked again what it left unread: it may have taken the
    /// rest between the two looks (`head -n 3` reads its third line and exits), and what it
    /// left is final only once it is gone. Counting from the look before, `sync | head -n 3`
    /// stored two entries of the three `head` printed, and the next sync printed the third again.
    package static func waitUntilTaken(
        _ written: Int, unread: () -> Int, readerLeft: () -> Bool, stop: (_ taken: Int) -> Bool
    ) -> TakenReport {
        var wait = ReaderWait()
        while true {
            let left = unread()
            guard left > 0 else { return TakenReport(taken: written, written: written) }
            if readerLeft() {
                let leftForGood = unread()
                guard leftForGood > 0 else { return TakenReport(taken: written, written: written) }
                let taken = max(0, written - leftForGood)
                return TakenReport(
                    taken: taken, written: written, failure: .output(OutputError(written: taken, errorNumber: EPIPE)))
            }
            let taken = max(0, written - left)
            if stop(taken) { return TakenReport(taken: taken, written: written, failure: .stopped) }
            ReaderWait.take(wait.next())
        }
    }
}
