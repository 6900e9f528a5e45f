import FeedHTTP

/// What a stream's reader makes of one chunk of its bytes: the signals, in order, and the
/// receipts of the bytes (`StreamBacklog`), which whoever holds what was read of them keeps, so
/// that a stream read faster than it is delivered waits at the socket, not in memory.
package struct StreamChunk: Sendable {
    package var signals: [StreamSignal]
    /// The chunk's own receipt and, when its items are larger than its bytes (an event joined
    /// from many chunks), one for the rest of their size: what waits to be delivered is counted
    /// as the items it holds, not as the last chunk that completed them.
    package var receipts: [StreamReceipt]

    package init(_ signals: [StreamSignal], receipt: StreamReceipt? = nil) {
        self.signals = signals
        self.receipts = receipt.map { [$0] } ?? []
    }
}
