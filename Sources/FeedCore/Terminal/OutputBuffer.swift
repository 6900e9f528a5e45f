import FeedModel

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
