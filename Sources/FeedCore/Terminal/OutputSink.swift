import FeedModel
import FoundationEssentials
import Glibc
import Synchronization

/// Where rendered bytes go: stdout, stderr, or memory in tests. Unbuffered: when `write`
/// returns, the bytes are with the reader (the kernel); buffering is the caller's choice
/// (`OutputBuffer`).
public protocol OutputSink: Sendable {
    /// Hands every byte of `bytes` on, or throws how many got out and why.
    func write(_ bytes: [UInt8]) throws(OutputError)
    /// A person is reading (a terminal): progress lines and wrapping are for them.
    var isTerminal: Bool { get }
    /// The terminal's width in columns, when the sink is a terminal that says.
    var columns: Int? { get }
    /// The terminal's height in lines, when the sink is a terminal that says.
    var rows: Int? { get }
    /// Writes `bytes` and reports how many of them the reader has taken: for a pipe, once the
    /// reader has read them all, gone away, or `stop` (checked while waiting, with the bytes
    /// taken so far) became true; for
    /// anything else, as `write` does. `boundaries` are where records end (offsets into `bytes`,
    /// ascending): a pipe gets one record at a time, so a reader never gets half of one, nor
    /// more than it is about to read.
    func writeUntilTaken(_ bytes: [UInt8], boundaries: [Int], stop: (_ taken: Int) -> Bool) -> TakenReport
}

extension OutputSink {
    public func write(_ text: String) throws(OutputError) { try write(Array(text.utf8)) }
    public var columns: Int? { nil }
    public var rows: Int? { nil }
    public func writeUntilTaken(_ bytes: [UInt8], boundaries: [Int], stop: (_ taken: Int) -> Bool) -> TakenReport {
        TakenReport(writingAll: bytes.count) { () throws(OutputError) in try write(bytes) }
    }
}
