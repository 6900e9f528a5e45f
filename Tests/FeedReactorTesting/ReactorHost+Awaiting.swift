import FeedReactor
import FeedTesting

extension ReactorHost {
    /// Sends `action` and awaits its processing, without holding a thread (`run` blocks its
    /// caller's): the state then.
    @discardableResult
    public func process(_ action: R.Action) async -> R.State {
        let finished = TestSignal()
        send(action) { finished.signal() }
        _ = await finished.wait(seconds: 60)
        return currentState
    }
}
