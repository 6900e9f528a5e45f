import FeedBase
import FoundationEssentials
import Glibc
import Synchronization

/// Ctrl-C, as seen by a command: the CLI triggers it from its signal handler; the running command
/// has registered what to cancel (its HTTP client, which aborts the request in flight before
/// anything of it is committed).
public final class Interruption: Sendable {
    private struct State: ~Copyable {
        var isTriggered = false
        /// How many `settleSignals` requests the signal thread has answered.
        var settled = 0
        var isNormalEnd = false
        var handlers: [@Sendable () -> Void] = []
        /// Handovers under way that the process must not end in the middle of (`--exec`).
        var handovers = 0
    }
    private let state = Mutex(State())

    public init() {}

    public var isTriggered: Bool { state.withLock { $0.isTriggered } }

    /// Whether the running command takes Ctrl-C and SIGTERM as its way to end (`follow`, which
    /// runs until told to stop): it then ends with its own status, not 130.
    public var isNormalEnd: Bool { state.withLock { $0.isNormalEnd } }

    /// Declares an interruption the command's normal end (see `isNormalEnd`).
    public func acceptAsNormalEnd() {
        state.withLock { $0.isNormalEnd = true }
    }

    /// Runs `handler` on trigger (at once if already triggered).
    public func onTrigger(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.isTriggered { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Runs `body`, a handover the process must see to its end even once interrupted (an
    /// `--exec` command holding an entry: the entry is then committed or not as the command
    /// decides, never left handed over and uncommitted by the signal handler's last resort).
    public func seeingThrough<T>(_ body: () -> T) -> T {
        state.withLock { $0.handovers += 1 }
        defer { state.withLock { $0.handovers -= 1 } }
        return body()
    }

    /// Whether a handover is under way (see `seeingThrough`).
    public var isHandingOver: Bool { state.withLock { $0.handovers > 0 } }

    public func trigger() {
        let handlers = state.withLock { state in
            defer { state.handlers = [] }
            state.isTriggered = true
            return state.handlers
        }
        for handler in handlers { handler() }
    }
}

extension Interruption {
    /// Blocks `signals` in the calling thread and so in every thread it starts afterwards: call
    /// it first thing in `main`, and a signal that arrives before `triggering(on:)` waits for it
    /// instead of taking its default action (SIGTERM would kill the process, 143).
    public static func block(_ signals: [Int32]) {
        var set = Self.set(of: signals + [settleSignal])
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The signal `settleSignals` sends the signal thread: a real-time one, which Linux delivers
    /// after every pending standard signal (SIGINT, SIGTERM).
    private static var settleSignal: Int32 { __libc_current_sigrtmin() }

    /// Triggers this interruption when one of `signals` (blocked by `block`) arrives: a thread
    /// of its own waits for them with `sigwait`, triggers, then runs `afterwards` (the CLI's last
    /// resort: exit after a grace period, should the command be stuck elsewhere). It answers
    /// `settleSignals` in between.
    public func triggering(on signals: [Int32], afterwards: @escaping @Sendable () -> Void) {
        _ = DetachedThread.start(named: "feedcli-signals") { [self] in
            var set = Self.set(of: signals + [Self.settleSignal])
            var number: Int32 = 0
            while true {
                guard sigwait(&set, &number) == 0 else { continue }
                if number == Self.settleSignal {
                    state.withLock { $0.settled += 1 }
                    continue
                }
                trigger()
                afterwards()
                return
            }
        }
    }

    /// Returns once every signal that arrived before the call is either triggered or still
    /// pending, so that `isTriggered || isPending` then says whether the run was interrupted. A
    /// signal the signal thread has taken from the kernel but not triggered yet (it was
    /// descheduled in between, on a busy machine) is otherwise neither: the process exited 0
    /// for a SIGTERM. The thread takes signals in order, and the settle signal, real-time,
    /// comes after any SIGINT or SIGTERM already there; its answer (or the trigger) ends the
    /// wait, and at most `limit` (a thread that never started answers nothing).
    public func settleSignals(limit: Duration = .milliseconds(200)) {
        let asked = state.withLock { $0.settled }
        guard kill(getpid(), Self.settleSignal) == 0 else { return }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let (settled, triggered) = state.withLock { ($0.settled, $0.isTriggered) }
            if settled > asked || triggered { return }
            usleep(20)
        }
    }

    /// Whether one of `signals` has arrived and waits, not yet taken by `triggering(on:)`'s
    /// thread: with `isTriggered`, "was this run interrupted", without a race at its very end.
    public static func isPending(_ signals: [Int32]) -> Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return signals.contains { sigismember(&pending, $0) == 1 }
    }

    private static func set(of signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }
}
