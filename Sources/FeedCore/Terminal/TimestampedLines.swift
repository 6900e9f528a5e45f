import FeedModel
import FoundationEssentials
import Glibc
import Synchronization

/// Diagnostics for a log file: each line starts with the time it was written (RFC 3339, UTC, then
/// a space). The CLI puts stderr behind it when stderr is a regular file, as in the README's
/// crontab line (`2>> $HOME/feeds.err`), so a failure in that file says when it happened; a
/// terminal or a pipe gets the lines as they are.
///
/// A failed write reports `written` in bytes of the stamped text (no caller of stderr uses it).
public final class TimestampedLines: OutputSink {
    private let sink: any OutputSink
    private let now: @Sendable () -> Date
    /// Whether the next byte starts a line (shared by every writer).
    private let atLineStart = Mutex(true)

    public init(sink: any OutputSink, now: @escaping @Sendable () -> Date) {
        self.sink = sink
        self.now = now
    }

    public var isTerminal: Bool { sink.isTerminal }

    public func write(_ bytes: [UInt8]) throws(OutputError) {
        let stamp = Array((Timestamp.format(now()) + " ").utf8)
        let stamped = atLineStart.withLock { atStart -> [UInt8] in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + stamp.count)
            for byte in bytes {
                if atStart {
                    output += stamp
                    atStart = false
                }
                output.append(byte)
                if byte == UInt8(ascii: "\n") { atStart = true }
            }
            return output
        }
        try sink.write(stamped)
    }
}
