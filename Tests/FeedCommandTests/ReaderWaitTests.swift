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
}
