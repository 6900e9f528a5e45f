import Dispatch
import FoundationEssentials
import Synchronization

/// How many bytes of one stream were handed on and not yet read, so that a stream faster than
/// its reader waits at the socket instead of in memory: before handing on more than `limit`
/// bytes, the HTTP worker waits until the reader has read some (TCP then slows the server). Each
/// chunk carries a `StreamReceipt`; when the reader lets the chunk go, its bytes count as read.
///
/// Threading: `waitForRoom` blocks the HTTP worker's thread (only while a stream is that far
/// ahead of its reader, which then holds up nothing that could go faster); receipts are
/// released on whatever thread the reader runs. `abandon` (the subscription disposed) ends any
/// wait at once.
package final class StreamBacklog: Sendable {
    /// What is unread includes what was parsed and waits to be delivered (a stream is read on
    /// a queue of its own, `FeedFetching.stream`), several times its bytes' size as items:
    /// 512 KiB of small events (some 6,000, sixty groups) keeps a million-event `follow` at
    /// 30 MiB and is still far more than one delivery takes at a time. Whoever holds a
    /// receipt must let it go once its bytes are read without waiting for more bytes (see
    /// `flatMap`'s outer elements), or a stream that fills the backlog waits forever.
    package static let limit = 512 * 1024

    private struct State {
        var pending = 0
        var abandoned = false
    }
    private let state = Mutex(State())
    private let room = DispatchSemaphore(value: 0)

    package init() {}

    /// Waits while more than `limit` bytes are unread; false when the stream was abandoned.
    package func waitForRoom() -> Bool {
        while true {
            let (full, abandoned) = state.withLock { ($0.pending > Self.limit, $0.abandoned) }
            if abandoned { return false }
            if !full { return true }
            _ = room.wait(timeout: .now() + .milliseconds(50))
        }
    }

    /// A receipt for `count` bytes handed on now.
    package func handOn(_ count: Int) -> StreamReceipt {
        state.withLock { $0.pending += count }
        return StreamReceipt(backlog: self, count: count)
    }

    fileprivate func read(_ count: Int) {
        let wasFull = state.withLock { state -> Bool in
            defer { state.pending -= count }
            return state.pending > Self.limit
        }
        if wasFull { room.signal() }
    }

    /// Ends every wait: nobody reads this stream any more.
    package func abandon() {
        state.withLock { $0.abandoned = true }
        room.signal()
    }

    /// Bytes handed on and not read yet.
    package var pending: Int { state.withLock { $0.pending } }
}

/// One chunk's bytes, counted as read when the last copy of the receipt goes.
public final class StreamReceipt: Sendable, Equatable {
    private let backlog: StreamBacklog
    private let count: Int

    fileprivate init(backlog: StreamBacklog, count: Int) {
        self.backlog = backlog
        self.count = count
    }

    deinit { backlog.read(count) }

    /// A receipt for `count` more bytes of the same stream, counted from now: what a reader
    /// made of bytes it held (an event joined from many chunks, handed on with the last one)
    /// counts as unread until it is delivered. It never waits (the bytes are already read).
    package func forMore(_ count: Int) -> StreamReceipt {
        backlog.handOn(count)
    }

    /// Receipts say nothing about the bytes: any two are alike.
    public static func == (lhs: StreamReceipt, rhs: StreamReceipt) -> Bool { true }
}
