import Synchronization

/// Where a run hands entries to the user: the reactor delivers a block of entries here and
/// commits only those reported delivered (contract: nothing unprinted is committed).
public protocol EntryOutput: Sendable {
    /// Writes `entries` (one feed's block, oldest first) and reports how many got out whole.
    func deliver(_ entries: [Entry]) -> DeliveryReport
    /// Runs `body`, in which this thread's deliveries form one block: no other thread's
    /// delivery comes in between (a feed delivered and committed in several batches).
    func exclusively<T>(_ body: () throws -> T) rethrows -> T
}

extension EntryOutput {
    public func exclusively<T>(_ body: () throws -> T) rethrows -> T { try body() }
}

/// How a delivery went: the first `delivered` entries were written completely; the rest were not.
public struct DeliveryReport: Sendable, Equatable {
    public enum Failure: Sendable, Equatable {
        /// The output could not take them (disk full, descriptor closed, reader gone).
        case output(OutputError)
        /// The user interrupted (Ctrl-C, SIGTERM) before they were written.
        case interrupted
    }

    public var delivered: Int
    public var failure: Failure?

    public init(delivered: Int, failure: Failure? = nil) {
        self.delivered = delivered
        self.failure = failure
    }
}

/// Prints entries as a command's data on stdout, in the run's format, and says exactly which
/// ones got out. Thread-safe: blocks from several feeds never interleave.
///
/// `.detailed` prints each entry whole (`next`: plain text, or one JSON object); `.list` prints
/// a growing list (`sync`: one line per entry, one JSON array, or JSON Lines) that `finish()`
/// closes. A block is rendered first and written in one go; when the write fails part way, the
/// entries whose last byte got out count as delivered. Into a pipe, entries go one at a time and
/// count as delivered once the reader has taken them (see `FileDescriptorSink`). Nothing is written once `interruption`
/// has triggered.
public final class EntryPrinter: EntryOutput {
    private let format: OutputFormat
    private let layout: EntryRenderer.Layout
    private let sink: any OutputSink
    private let interruption: Interruption?
    private let progress: ProgressLine?
    /// Entries printed so far (for the JSON array's commas and closing).
    private let printed = Mutex(0)
    /// Held for a block: one delivery, or every delivery inside `exclusively`.
    private let block = RecursiveLock()

    public init(
        format: OutputFormat, layout: EntryRenderer.Layout, sink: any OutputSink, interruption: Interruption? = nil,
        progress: ProgressLine? = nil
    ) {
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
            if sink.tracksReading {
                // A pipe: one entry at a time, each counted once the reader has taken it.
                for (offset, entry) in entries.enumerated() {
                    var bytes: [UInt8] = []
                    EntryRenderer.element(entry, number: printed, format: format, layout: layout, width: width, into: &bytes)
                    do throws(OutputError) {
                        try sink.write(bytes)
                        try sink.waitUntilRead()
                        printed += 1
                    } catch {
                        return DeliveryReport(delivered: offset, failure: .output(error))
                    }
                }
                return DeliveryReport(delivered: entries.count)
            }
            var block: [UInt8] = []
            var ends: [Int] = []
            for (offset, entry) in entries.enumerated() {
                EntryRenderer.element(entry, number: printed + offset, format: format, layout: layout, width: width,
                                      into: &block)
                ends.append(block.count)
            }
            do throws(OutputError) {
                try sink.write(block)
                printed += entries.count
                return DeliveryReport(delivered: entries.count)
            } catch {
                let delivered = ends.prefix { $0 <= error.written }.count
                printed += delivered
                return DeliveryReport(delivered: delivered, failure: .output(error))
            }
        }
    }

    /// Ends a stream: closes the JSON array (`[]` when nothing was printed).
    public func finish() throws(OutputError) {
        let end = EntryRenderer.end(count: count, format: format, layout: layout)
        if !end.isEmpty { try sink.write(end) }
    }
}
