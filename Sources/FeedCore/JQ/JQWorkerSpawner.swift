import Dispatch
import FeedBase

/// The one thread that starts jq workers, for as long as the process lives.
///
/// A worker asks the kernel to kill it when its parent goes (`PR_SET_PDEATHSIG`), and "parent"
/// there is the *thread* that started it (prctl(2)): a worker started from a dispatch queue's
/// thread died when that thread exited, after about 5 s idle, so a stream's first lull killed
/// the next page's worker. Started from this thread, which never exits, a worker dies with the
/// process and not before, whichever queue later asks for one.
///
/// Threading: `run` may be called from any thread; it blocks its caller until the job ran here.
package final class JQWorkerSpawner: Sendable {
    package static let shared = JQWorkerSpawner()

    private let jobs = Locked<[@Sendable () -> Void]>([])
    private let pending = DispatchSemaphore(value: 0)
    /// Whether the thread runs; when it could not be started, jobs run on their caller's thread
    /// (a worker then lives only as long as that thread, as before).
    private let hasThread: Bool

    private init() {
        let jobs = self.jobs
        let pending = self.pending
        hasThread =
            DetachedThread.start(named: "feedcli.jq-spawn") {
                while true {
                    pending.wait()
                    let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    job?()
                }
            } == nil
    }

    /// Runs `body` on the spawner's thread and returns what it gave.
    package func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) -> Value {
        guard hasThread else { return body() }
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Value?>(nil)
        jobs.withLock {
            $0.append {
                result.withLock { $0 = body() }
                done.signal()
            }
        }
        pending.signal()
        done.wait()
        // The job set it before signalling; run it here only if that invariant were ever broken.
        return result.value ?? body()
    }
}
