@testable import FeedHTTP
import Dispatch
import Synchronization
import Testing

/// A stream's reader holds the HTTP worker back (the bytes wait at the socket, not in memory):
/// the worker's wait ends when the reader lets chunks go, or when nobody reads any more.
@Suite("A stream's unread bytes")
struct StreamBacklogTests {
    @Test func theWorkerWaitsUntilTheReaderLetsChunksGo() {
        let backlog = StreamBacklog()
        var receipts: [StreamReceipt] = [backlog.handOn(StreamBacklog.limit), backlog.handOn(1)]
        #expect(backlog.pending == StreamBacklog.limit + 1)
        let waited = DispatchSemaphore(value: 0), answer = Mutex<Bool?>(nil)
        DispatchQueue.global().async {
            answer.withLock { $0 = backlog.waitForRoom() }
            waited.signal()
        }
        #expect(waited.wait(timeout: .now() + .milliseconds(200)) == .timedOut, "more than the limit unread: it waits")
        receipts.removeFirst()  // the reader is done with the big chunk
        #expect(waited.wait(timeout: .now() + 10) == .success)
        #expect(answer.withLock { $0 } == true && backlog.pending == 1)
        receipts.removeAll()
        #expect(backlog.pending == 0)
    }

    @Test func abandoningEndsTheWait() {
        let backlog = StreamBacklog()
        let receipt = backlog.handOn(StreamBacklog.limit + 1)
        let waited = DispatchSemaphore(value: 0), answer = Mutex<Bool?>(nil)
        DispatchQueue.global().async {
            answer.withLock { $0 = backlog.waitForRoom() }
            waited.signal()
        }
        backlog.abandon()
        #expect(waited.wait(timeout: .now() + 10) == .success)
        #expect(answer.withLock { $0 } == false, "the transfer is aborted")
        withExtendedLifetime(receipt) {}
    }
}
