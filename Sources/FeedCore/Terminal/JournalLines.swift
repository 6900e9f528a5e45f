import FeedModel
import FoundationEssentials
import Glibc
import Synchronization

/// Diagnostics for systemd's journal: each line starts with a `<N>` priority prefix, as
/// sd-daemon(3) describes, and carries no time stamp (the journal stamps every line). The CLI
/// puts stderr behind it when `$JOURNAL_STREAM` names stderr itself (its `device:inode`), so a
/// `feedcli` started by a unit logs with priorities and one run from a shell inside that unit's
/// session (stderr a terminal) does not.
///
/// A line's priority comes from what it says: a warning (`…: warning: …`) is `<4>`, a line of
/// `--verbose` is `<6>` (`writeInformation`), anything else feedcli writes to stderr is a failure,
/// `<3>`.
public final class JournalLines: OutputSink {
    private let sink: any OutputSink
    /// The bytes of a line not yet ended (a line is prefixed once it is whole, so that its
    /// words decide its priority even when it is written in pieces).
    private let pending = Mutex<[UInt8]>([])

    public init(sink: any OutputSink) {
        self.sink = sink
    }

    /// Whether `$JOURNAL_STREAM` (`environment`'s) names the descriptor `descriptor`.
    public static func isJournal(_ descriptor: Int32, environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    public var isTerminal: Bool { false }

    public func write(_ bytes: [UInt8]) throws(OutputError) {
        try write(bytes, priority: nil)
    }

    /// Writes lines of `--verbose` (informational, `<6>`).
    public func writeInformation(_ bytes: [UInt8]) throws(OutputError) {
        try write(bytes, priority: 6)
    }

    /// Writes lines whose priority the writer knows (0 emergency … 7 debug).
    public func write(_ bytes: [UInt8], priority: Int?) throws(OutputError) {
        let lines = pending.withLock { pending -> [[UInt8]] in
            pending += bytes
            var lines: [[UInt8]] = []
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(Array(pending[...end]))
                pending.removeSubrange(...end)
            }
            return lines
        }
        guard !lines.isEmpty else { return }
        var output: [UInt8] = []
        for line in lines {
            output += Array("<\(priority ?? Self.priority(of: line))>".utf8) + line
        }
        try sink.write(output)
    }

    /// `<4>` for a warning, `<3>` for anything else.
    static func priority(of line: [UInt8]) -> Int {
        let warning = Array(": warning: ".utf8)
        guard line.count >= warning.count else { return 3 }
        for start in 0...(line.count - warning.count) where line[start..<(start + warning.count)].elementsEqual(warning)
        {
            return 4
        }
        return 3
    }
}
