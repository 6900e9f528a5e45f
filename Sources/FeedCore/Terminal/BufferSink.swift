import FeedModel
import Glibc
import Synchronization

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
