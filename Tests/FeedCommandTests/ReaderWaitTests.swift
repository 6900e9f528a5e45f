import FeedModel
import Glibc
import Testing

@testable import FeedTerminal

/// The pipe writer's wait for its reader, step by step (no clock: the schedule is a value).
/// A reader that starts reading late costs one look at most `longestPause` later, whatever the
/// number of records; before, this was a process test with a wall-clock bound.
@Suite("Waiting for a pipe's reader")
struct ReaderWaitTests {
    @Test func yieldsThenSleepsDoublingUpToTheLongestPause() {
        var wait = ReaderWait()
        let steps = (0..<40).map { _ in wait.next() }
        #expect(steps.prefix(ReaderWait.yields) == Array(repeating: .yield, count: ReaderWait.yields)[...])
        let sleeps = steps.dropFirst(ReaderWait.yields).map { step -> Duration in
            guard case .sleep(let pause) = step else { return .zero }
            return pause
        }
        #expect(
            Array(sleeps.prefix(4)) == [.microseconds(10), .microseconds(20), .microseconds(40), .microseconds(80)])
        #expect(sleeps.allSatisfy { $0 > .zero && $0 <= ReaderWait.longestPause })
        #expect(sleeps.last == ReaderWait.longestPause, "a reader that never reads is looked at every 20 ms")
    }

    @Test func everyRecordsWaitStartsAfresh() {
        var first = ReaderWait()
        for _ in 0..<100 { _ = first.next() }
        var fresh = ReaderWait()
        #expect(fresh.next() == .yield)
        #expect(first.next() == .sleep(ReaderWait.longestPause))
    }

    /// The reader takes the record's last bytes and leaves between the writer's two looks (how
    /// many bytes are unread, whether it is gone): the record is its, whole.
    @Test func aReaderThatTakesTheRestAsItLeavesTookTheRecord() {
        var pipe = [5, 0]  // unread at the first look; then the reader read them and left
        let report = FileDescriptorSink.waitUntilTaken(
            12, unread: { pipe.count > 1 ? pipe.removeFirst() : pipe[0] }, readerLeft: { true }, stop: { _ in false })
        #expect(report == TakenReport(taken: 12, written: 12))
    }

    @Test func aReaderThatLeavesWithBytesUnreadTookWhatItRead() {
        let report = FileDescriptorSink.waitUntilTaken(12, unread: { 5 }, readerLeft: { true }, stop: { _ in false })
        #expect(
            report == TakenReport(taken: 7, written: 12, failure: .output(OutputError(written: 7, errorNumber: EPIPE))))
    }

    @Test func aStopWhileTheReaderWaitsCountsWhatItTook() {
        let report = FileDescriptorSink.waitUntilTaken(12, unread: { 4 }, readerLeft: { false }, stop: { $0 == 8 })
        #expect(report == TakenReport(taken: 8, written: 12, failure: .stopped))
    }
}
