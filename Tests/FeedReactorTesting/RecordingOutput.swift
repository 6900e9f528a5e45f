import FeedBase
import FeedModel
import FeedReactor

/// An output that takes every entry and keeps it, in delivery order: what reactor tests give a
/// reactor that delivers, so that they stand below the terminal (no printer, no sink).
public final class RecordingOutput: EntryOutput {
    private let delivered = Locked<[Entry]>([])

    public init() {}

    /// Every entry delivered so far, oldest delivery first.
    public var entries: [Entry] { delivered.value }

    public func deliver(_ entries: [Entry]) -> DeliveryReport {
        delivered.withLock { $0.append(contentsOf: entries) }
        return DeliveryReport(delivered: entries.count)
    }
}
