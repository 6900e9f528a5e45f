import FeedBase
import FeedModel
import FeedReactor
import FeedRendering
import FoundationEssentials
import Glibc
import Synchronization

/// Prints entries as a command's data on stdout, in the run's format, and says exactly which
/// ones got out. Thread-safe: blocks from several feeds never interleave.
///
/// `.detailed` prints each entry whole (`next`: plain text, or one JSON object); `.list` prints
/// a growing list (`sync`: one line per entry, one JSON array, or JSON Lines) that `finish()`
/// closes. A block is rendered first and written in one go; the entries whose last byte got out
/// count as delivered. Into a pipe, "got out" means the reader has taken it (see
/// `FileDescriptorSink`), and an interruption while the reader is slow ends the block there:
/// what the reader took is delivered (and committed), the rest is not. Nothing is written once
/// `interruption` has triggered.
public final class EntryPrinter: EntryOutput {
    private let format: OutputFormat
    private let layout: EntryRenderer.Layout
    private let sink: any OutputSink
    private let interruption: Interruption?
    private let progress: ProgressLine?
    /// Entries written so far (for the JSON array's commas and closing).
    private let printed = Mutex(0)
    /// Held for a block: one delivery, or every delivery inside `exclusively`.
    private let block = RecursiveLock()
    private let patience: ReaderPatience?
    /// Whether `patience` has spoken (once a run).
    private let told = Mutex(false)

    /// How long a reader of stdout that takes nothing is waited for before one stderr line says
    /// so (`--wait`), and where that line goes.
    public struct ReaderPatience: Sendable {
        public var after: Duration
        public var tell: @Sendable (String) -> Void

        public init(after: Duration, tell: @escaping @Sendable (String) -> Void) {
            (self.after, self.tell) = (after, tell)
        }
    }

    public init(
        format: OutputFormat, layout: EntryRenderer.Layout, sink: any OutputSink, interruption: Interruption? = nil,
        progress: ProgressLine? = nil, patience: ReaderPatience? = nil
    ) {
        self.patience = patience
        self.progress = progress
        self.format = format
        self.layout = layout
        self.sink = sink
        self.interruption = interruption
    }

    public var count: Int { printed.withLock { $0 } }

    public func deliver(_ entries: [Entry]) -> DeliveryReport {
        guard !entries.isEmpty else { return DeliveryReport(delivered: 0) }
        return block.withLock {
            guard let progress else { return write(entries) }
            return progress.pausing { write(entries) }
        }
    }

    public func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        try block.withLock(body)
    }

    private func write(_ entries: [Entry]) -> DeliveryReport {
        printed.withLock { printed in
            if interruption?.isTriggered == true { return DeliveryReport(delivered: 0, failure: .interrupted) }
            let width = sink.columns
            var block: [UInt8] = []
            var ends: [Int] = []
            for (offset, entry) in entries.enumerated() {
                EntryRenderer.element(
                    entry, number: printed + offset, format: format, layout: layout, width: width,
                    into: &block)
                ends.append(block.count)
            }
            let started = ContinuousClock.now
            let report = sink.writeUntilTaken(block, boundaries: ends) { taken in
                if interruption?.isTriggered == true { return true }
                if let patience, ContinuousClock.now - started >= patience.after, firstTelling() {
                    let waiting = entries[min(entries.count - 1, ends.prefix { $0 <= taken }.count)]
                    patience.tell(
                        "the reader of stdout has not taken entry \(waiting.handle) of \(waiting.feed) for "
                            + "\(patience.after.components.seconds) s; waiting on (Ctrl-C commits what it has taken)")
                }
                return false
            }
            let delivered = ends.prefix { $0 <= report.taken }.count
            // Entries written whole, delivered or waiting in a pipe, count for the JSON array's
            // separators and its end.
            printed += ends.prefix { $0 <= report.written }.count
            switch report.failure {
            case nil: return DeliveryReport(delivered: delivered)
            case .output(let error)?: return DeliveryReport(delivered: delivered, failure: .output(error))
            case .stopped?: return DeliveryReport(delivered: delivered, failure: .interrupted)
            }
        }
    }

    /// True the first time it is asked.
    private func firstTelling() -> Bool {
        told.withLock { told in
            defer { told = true }
            return !told
        }
    }

    /// Ends a stream: closes the JSON array (`[]` when nothing was printed).
    public func finish() throws(OutputError) {
        let end = EntryRenderer.end(count: count, format: format, layout: layout)
        if !end.isEmpty { try sink.write(end) }
    }
}
