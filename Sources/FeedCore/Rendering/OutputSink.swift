import Synchronization

/// Where rendered bytes go: stdout, stderr, or memory in tests. Unbuffered: when `write`
/// returns, the bytes are with the reader (the kernel); buffering is the caller's choice
/// (`OutputBuffer`).
public protocol OutputSink: Sendable {
    /// Hands every byte of `bytes` on, or throws how many got out and why.
    func write(_ bytes: [UInt8]) throws(OutputError)
    /// A person is reading (a terminal): progress lines and wrapping are for them.
    var isTerminal: Bool { get }
    /// Whether `waitUntilRead()` can tell that the reader has taken what was written (a pipe).
    var tracksReading: Bool { get }
    /// The terminal's width in columns, when the sink is a terminal that says.
    var columns: Int? { get }
    /// Blocks until the reader has taken everything written so far, or throws, with `written`
    /// counting the bytes it never took, when the reader went away first.
    func waitUntilRead() throws(OutputError)
}

extension OutputSink {
    public func write(_ text: String) throws(OutputError) { try write(Array(text.utf8)) }
    public var tracksReading: Bool { false }
    public var columns: Int? { nil }
    public func waitUntilRead() throws(OutputError) {}
}

/// A write that did not complete: the disk is full (ENOSPC), the descriptor is closed (EBADF),
/// the device failed (EIO), or the reader went away (EPIPE).
public struct OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes of the failed write that did get out (for `waitUntilRead`: that the reader never took).
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

/// A file descriptor: stdout or stderr. SIGPIPE is ignored by the CLI, so a reader that has gone
/// shows up here as EPIPE rather than killing the process.
///
/// A write to a pipe succeeds as soon as the kernel buffers it, before the reader has read
/// anything: `sync | head -n 3` would otherwise see every entry "written" while `head` takes
/// three. For pipes, `waitUntilRead()` therefore watches the pipe's unread byte count (Linux's
/// `FIONREAD` works on the write end) until the reader has taken everything, or has closed its
/// end with bytes unread. A reader that leaves bytes unread for `readerGrace` (one that reads
/// only when feedcli exits, or a pager waiting for a key) is trusted to read them later: from
/// then on the pipe is treated like a file, so such a reader never deadlocks feedcli.
public final class FileDescriptorSink: OutputSink {
    private let descriptor: Int32
    /// One writer at a time, so blocks from different threads never interleave.
    private let writing = Mutex(())
    private let isPipe: Bool
    private let readerStalled = Mutex(false)
    static let readerGrace: Duration = .milliseconds(250)

    public var tracksReading: Bool { isPipe && !readerStalled.withLock { $0 } }

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

    /// `TIOCGWINSZ`'s width, else `$COLUMNS`, when this is a terminal.
    public var columns: Int? {
        guard isTerminal else { return nil }
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    public func write(_ bytes: [UInt8]) throws(OutputError) {
        if wasClosed { throw OutputError(written: 0, errorNumber: EBADF) }
        let failure = writing.withLock { _ -> OutputError? in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    switch errno {
                    case EINTR: continue
                    case EAGAIN:  // a non-blocking descriptor inherited from the caller: wait until it drains
                        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&ready, 1, -1)
                        continue
                    default: return OutputError(written: offset, errorNumber: errno)
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
    public func waitUntilRead() throws(OutputError) {
        guard tracksReading else { return }
        var pause: useconds_t = 10
        var yields = 0
        let deadline = ContinuousClock.now + Self.readerGrace
        while true {
            var unread: Int32 = 0
            // When the count cannot be read, the bytes count as taken (as for any other file).
            guard ioctl(descriptor, UInt(FIONREAD), &unread) == 0, unread > 0 else { return }
            var reader = pollfd(fd: descriptor, events: 0, revents: 0)
            if poll(&reader, 1, 0) > 0, reader.revents & Int16(POLLERR | POLLHUP) != 0 {
                throw OutputError(written: Int(unread), errorNumber: EPIPE)
            }
            if ContinuousClock.now > deadline {
                readerStalled.withLock { $0 = true }
                return
            }
            // A reader that is running takes the bytes within microseconds: give it the CPU
            // first, and sleep (backing off) only if it is slower than that.
            if yields < 16 {
                yields += 1
                sched_yield()
            } else {
                usleep(pause)
                pause = min(pause * 2, 10_000)
            }
        }
    }
}

/// Collects output in memory, for tests; can be told to fail like a full disk after some bytes.
public final class BufferSink: OutputSink {
    private struct State {
        var bytes: [UInt8] = []
        var capacity: Int?
        var errorNumber: Int32
    }
    private let state: Mutex<State>

    /// A sink that takes `capacity` bytes (all, when nil), then fails with `errorNumber`.
    public init(capacity: Int? = nil, errorNumber: Int32 = ENOSPC) {
        state = Mutex(State(capacity: capacity, errorNumber: errorNumber))
    }

    public var isTerminal: Bool { false }

    public func write(_ bytes: [UInt8]) throws(OutputError) {
        let failure = state.withLock { state -> OutputError? in
            let room = state.capacity.map { max(0, $0 - state.bytes.count) } ?? bytes.count
            state.bytes += bytes.prefix(room)
            return room < bytes.count ? OutputError(written: room, errorNumber: state.errorNumber) : nil
        }
        if let failure { throw failure }
    }

    public var data: [UInt8] { state.withLock { $0.bytes } }
    public var text: String { String(decoding: data, as: UTF8.self) }
}

/// Batches small writes into large ones (for `list` over 100,000 entries): bytes go out when
/// 64 KiB have gathered and at `flush()`.
public struct OutputBuffer {
    private let sink: any OutputSink
    private var bytes: [UInt8] = []
    private let capacity: Int

    public init(sink: any OutputSink, capacity: Int = 64 * 1024) {
        self.sink = sink
        self.capacity = capacity
        bytes.reserveCapacity(capacity + 4096)
    }

    public mutating func append(_ more: [UInt8]) throws(OutputError) {
        bytes += more
        if bytes.count >= capacity { try flush() }
    }

    /// Lets `render` append straight into the buffer (no bytes of its own to copy).
    public mutating func render(_ render: (inout [UInt8]) -> Void) throws(OutputError) {
        render(&bytes)
        if bytes.count >= capacity { try flush() }
    }

    public mutating func flush() throws(OutputError) {
        defer { bytes.removeAll(keepingCapacity: true) }
        try sink.write(bytes)
    }
}
