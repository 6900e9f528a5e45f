import CJQ
import Dispatch
import Synchronization

/// jq expressions, run by jq's own library (libjq 1.6, loaded on first use by `CJQ`).
///
/// Threading contract: every call into libjq happens on one thread of its own, started on first
/// use and alive until the process exits, because Debian's jq 1.6 keeps per-thread state and is
/// not safe to use from several threads (jq issues #2483, #2545). A caller hands `run` a job and
/// waits for it with a deadline; the job gets a `JQSession`, which exists only on that thread
/// (it is not `Sendable`, so nothing that holds a libjq pointer can leave it).
///
/// jq 1.6 cannot be interrupted. A job that overruns its deadline (`repeat(.)`, `range(1e12)`)
/// is left running: its caller gets `.timedOut`, and every later job fails at once with
/// `.stillRunning` until it ends, so a runaway expression holds no run past its `--timeout`.
public enum JQ {
    /// Checks that `expression` compiles; jq's message when it does not.
    public static func check(_ expression: String) throws(JQError) {
        try run(timeout: .seconds(10)) { session throws(JQError) in _ = try session.program(expression) }
    }

    /// Runs `job` on jq's thread and returns what it returns, waiting at most `timeout`.
    static func run<T: Sendable>(
        timeout: Duration, _ job: @escaping @Sendable (inout JQSession) throws(JQError) -> T
    ) throws(JQError) -> T {
        if let failure = cjq_load() { throw .unavailable(String(cString: failure)) }
        guard thread.started else { throw .unavailable("jq's thread could not be started") }
        if thread.busyPastDeadline.load(ordering: .acquiring) { throw .stillRunning }
        let outcome = Locked<Result<T, JQError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        thread.inbox.withLock { jobs in
            jobs.append { session in
                let result = Result { () throws(JQError) -> T in try job(&session) }
                outcome.withLock { $0 = result }
                done.signal()
            }
        }
        thread.wake.signal()
        let seconds = max(0, Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        if done.wait(timeout: .now() + seconds) == .timedOut {
            // The job is still running; mark it so, unless it finished in the meantime.
            if outcome.value == nil { thread.busyPastDeadline.store(true, ordering: .releasing) }
            if let result = outcome.value { return try result.get() }
            throw .timedOut(timeout)
        }
        guard let result = outcome.value else { throw .timedOut(timeout) }
        return try result.get()
    }

    private static let thread = JQThread().start()
}

/// The thread all libjq calls run on, and its queue of jobs.
private final class JQThread: Sendable {
    let inbox = Mutex<[@Sendable (inout JQSession) -> Void]>([])
    let wake = DispatchSemaphore(value: 0)
    /// Set when a caller gave up on the running job; cleared when that job ends.
    let busyPastDeadline = Atomic<Bool>(false)
    private let startFailed = Atomic<Bool>(false)

    var started: Bool { !startFailed.load(ordering: .acquiring) }

    /// Starts the thread; once, from `JQ.thread`'s initialisation.
    func start() -> Self {
        let failed = DetachedThread.start(named: "feedcli-jq") { [self] in
            // The session, and every libjq pointer in it, never leaves this thread.
            var session = JQSession()
            while true {
                wake.wait()
                guard let job = inbox.withLock({ jobs in jobs.isEmpty ? nil : jobs.removeFirst() }) else { continue }
                job(&session)
                busyPastDeadline.store(false, ordering: .releasing)
            }
        } != nil
        startFailed.store(failed, ordering: .releasing)
        return self
    }
}
