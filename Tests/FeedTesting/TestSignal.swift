import Dispatch
import Synchronization

/// A counting signal a test awaits instead of blocking on a semaphore.
///
/// Swift Testing runs tests on the cooperative pool, which has one thread a core: a test that
/// blocks its thread (`DispatchSemaphore.wait`) keeps every other test, and any awaited work of
/// its own, off that thread. `wait(seconds:)` suspends instead, and gives up at its deadline
/// (a bound against a hang, never a measurement) without any thread waiting for it.
///
/// Like a semaphore, each `signal()` lets one `wait` through, whether it comes before or after.
public final class TestSignal: Sendable {
    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var count = 0
        var nextID = 0
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Lets one waiter through: the oldest one waiting, or the next one to wait.
    public func signal() {
        let waiter = state.withLock { state -> Waiter? in
            if state.waiters.isEmpty {
                state.count += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: true)
    }

    /// Whether a signal came within `seconds`; false also when the task is cancelled (a test
    /// past its time limit), so that no test is left suspended forever.
    public func wait(seconds: Double = 10) async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let passed = state.withLock { state -> Bool in
                    if state.count > 0 {
                        state.count -= 1
                        return true
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if passed { return continuation.resume(returning: true) }
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in giveUp(id) }
            }
        } onCancel: {
            giveUp(id)
        }
    }

    /// Resumes waiter `id` with false, if it is still waiting.
    private func giveUp(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}
