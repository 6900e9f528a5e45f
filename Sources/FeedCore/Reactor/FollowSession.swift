import FeedKinds
import FeedReactive
import Synchronization

/// What ends one `follow` session: its limits and the environment's stop, whichever fires
/// first; `ended` fires (completes) then, once.
package final class FollowSession: Sendable {
    let limits: FollowLimits
    let scheduler: any Scheduler
    let budget: EntryBudget?
    private let subject = Subject<Void>()
    private let fired = Mutex(false)
    private let watches = CompositeDisposable()
    /// The `--until-idle` timer, set again by every batch of events.
    private let idleTimer = SerialDisposable()
    private let stop: Observable<Void>

    init(limits: FollowLimits, scheduler: any Scheduler, stop: Observable<Void>) {
        self.limits = limits
        self.scheduler = scheduler
        self.stop = stop
        budget = limits.maxEntries.map(EntryBudget.init)
    }

    /// Fires once the session should end.
    var ended: Observable<Void> { subject.observable }

    func start() {
        watch(stop.subscribe { [self] _ in fire() })
        if let maxTime = limits.maxTime { watch(scheduler.schedule(after: maxTime) { [self] in fire() }) }
        if let budget { watch(budget.exhausted.subscribe { [self] _ in fire() }) }
        touch()
    }

    /// Events arrived: the `--until-idle` wait starts again.
    func touch() {
        guard let untilIdle = limits.untilIdle else { return }
        idleTimer.replace(with: scheduler.schedule(after: untilIdle) { [self] in fire() })
    }

    func end() {
        watches.dispose()
        idleTimer.dispose()
    }

    private func watch(_ disposable: any Disposable) {
        let key = watches.reserveKey()
        watches.add(disposable, for: key)
    }

    private func fire() {
        guard
            fired.withLock({ fired in
                defer { fired = true }
                return !fired
            })
        else { return }
        subject.send(.completed)
    }
}
