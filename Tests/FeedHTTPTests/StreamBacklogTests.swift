import FeedTesting
import Foundation
import Synchronization
import Testing

@testable import FeedHTTP

/// A stream's reader holds the HTTP worker back (the bytes wait at the socket, not in memory):
/// the worker's wait ends when the reader lets chunks go, or when nobody reads any more.
@Suite("A stream's unread bytes")
struct StreamBacklogTests {
    @Test func theWorkerWaitsUntilTheReaderLetsChunksGo() async {
        let backlog = StreamBacklog()
        var receipts: [StreamReceipt] = [backlog.handOn(StreamBacklog.limit), backlog.handOn(1)]
        #expect(backlog.pending == StreamBacklog.limit + 1)
        let waited = TestSignal()
        let answer = Mutex<Bool?>(nil)
        Thread.detachNewThread {  // the worker's wait blocks: a thread of its own
            answer.withLock { $0 = backlog.waitForRoom() }
            waited.signal()
        }
        // That it waits can only be seen as nothing happening for a while (bounded, 0.2 s).
        #expect(await !waited.wait(seconds: 0.2), "more than the limit unread: it waits")
        receipts.removeFirst()  // the reader is done with the big chunk
        #expect(await waited.wait(seconds: 10))
        #expect(answer.withLock { $0 } == true && backlog.pending == 1)
        receipts.removeAll()
        #expect(backlog.pending == 0)
    }

    @Test func abandoningEndsTheWait() async {
        let backlog = StreamBacklog()
        let receipt = backlog.handOn(StreamBacklog.limit + 1)
        let waited = TestSignal()
        let answer = Mutex<Bool?>(nil)
        Thread.detachNewThread {
            answer.withLock { $0 = backlog.waitForRoom() }
            waited.signal()
        }
        backlog.abandon()
        #expect(await waited.wait(seconds: 10))
        #expect(answer.withLock { $0 } == false, "the transfer is aborted")
        withExtendedLifetime(receipt) {}
    }
}
