import FeedHTTP

/// What a stream's reader makes of one chunk of its bytes: the signals, in order, and the
/// receipt of the bytes (`StreamBacklog`), which whoever holds what was read of them keeps, so
/// that a stream read faster than it is delivered waits at the socket, not in memory.
package struct StreamChunk: Sendable {
    package var signals: [StreamSignal]
    package var receipt: StreamReceipt?

    package init(_ signals: [StreamSignal], receipt: StreamReceipt? = nil) {
        self.signals = signals
        self.receipt = receipt
    }
}
