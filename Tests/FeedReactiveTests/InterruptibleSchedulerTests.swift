import FeedReactive
import FeedTesting
import Synchronization
import Testing

/// Waits an interruption cuts short (a retry's backoff when Ctrl-C or SIGTERM comes), on a
/// virtual clock: nothing here waits for real time.
@Suite("Interruptible waits")
struct InterruptibleSchedulerTests {
    @Test func aWaitRunsAtItsTimeUntilInterruptedThenAtOnce() {
        let clock = TestScheduler()
        let waits = InterruptibleScheduler(clock)
        let ran = Mutex<[String]>([])
        _ = waits.schedule(after: .seconds(60)) { ran.withLock { $0.append("backoff") } }
        _ = waits.schedule(after: .seconds(5)) { ran.withLock { $0.append("short") } }
        clock.advance(by: .seconds(5))
        #expect(ran.withLock { $0 } == ["short"], "a wait runs at its time")

        waits.interrupt()
        #expect(ran.withLock { $0 } == ["short"], "never inside interrupt() itself")
        clock.advance(by: .zero)
        #expect(ran.withLock { $0 } == ["short", "backoff"], "the waiting one runs at once, not 55 s later")
        clock.advance(by: .seconds(60))
        #expect(ran.withLock { $0 } == ["short", "backoff"], "and only once")

        _ = waits.schedule(after: .seconds(3600)) { ran.withLock { $0.append("later") } }
        clock.advance(by: .zero)
        #expect(ran.withLock { $0 }.last == "later", "a wait scheduled after the interruption does not wait")
    }

    @Test func aDisposedWaitNeverRunsInterruptedOrNot() {
        let clock = TestScheduler()
        let waits = InterruptibleScheduler(clock)
        let ran = Mutex(0)
        waits.schedule(after: .seconds(10)) { ran.withLock { $0 += 1 } }.dispose()
        waits.interrupt()
        clock.advance(by: .seconds(10))
        #expect(ran.withLock { $0 } == 0)
    }
}
