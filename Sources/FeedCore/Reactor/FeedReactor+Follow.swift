import FeedBase
import FeedKinds
import FeedModel
import FeedReactive
import FeedStoreContract
import FoundationEssentials
import Synchronization

/// `follow`: one session that prints and commits every feed's new entries as they are found,
/// stream feeds live and polled feeds when they are due, until a limit, Ctrl-C or SIGTERM.
extension FeedReactor {
    /// How often a polled feed without `--every` is fetched by `follow`.
    package static let defaultPollInterval: Duration = .seconds(15 * 60)
    /// The first wait before a feed whose `--exec` command failed is tried again; it doubles
    /// with each failure in a row, up to `longestRefusalWait`.
    package static let firstRefusalWait: Duration = .seconds(1)
    package static let longestRefusalWait: Duration = .seconds(5 * 60)

    /// Follows `names` (every feed when empty) until `limits` or the environment's `stop` ends
    /// the session: each stream feed on its own connection under its lock, each polled feed
    /// synced whenever it is due (a timer per feed, on the scheduler: rounds of the feed's own
    /// `sync`, nothing beside the reactor). One feed's failure is recorded as any feed's and
    /// the others go on.
    package func follow(_ names: [String], limits: FollowLimits) -> Observable<FeedMutation> {
        let store = environment.store
        let environment = self.environment
        return .deferred {
            let records =
                names.isEmpty
                ? Self.followedByAll(try store.feeds())
                : try names.map { name throws(FeedFailure) in try store.feed(named: name) }
            guard !records.isEmpty else {
                throw FeedFailure.usage("no feed to follow: add one with `feedcli feeds add NAME URL`")
            }
            let session = FollowSession(limits: limits, scheduler: environment.scheduler, stop: environment.stop)
            let work =
                names.isEmpty
                ? followingEveryFeed(records, session: session, limits: limits)
                : Observable.from(records).flatMap(.merge(maxConcurrent: records.count)) { record in
                    following(record, session: session, limits: limits)
                }
            return Observable { observer in
                session.start()
                let subscription = work.subscribe(observer.send)
                return Disposables.create {
                    subscription.dispose()
                    session.end()
                }
            }
        }
    }

    /// The feeds a `follow` of every feed follows: all but those never synced but by name
    /// (`--every never`).
    static func followedByAll(_ records: [FeedRecord]) -> [FeedRecord] {
        records.filter { $0.every != EveryDuration.never || $0.registration.kind.isStream }
    }

    /// One feed for the whole session: rounds of its work (a stream's connections, a polled
    /// feed's sync), each under the feed's lock. After a round, a feed whose `--exec` command
    /// failed is tried again after a wait that doubles; a polled feed waits until it is due (the
    /// first round too: a `follow` restarted by its service does not fetch every feed again); a
    /// stream that ended for good (a failure reconnecting cannot mend, a 204) is done.
    func following(_ record: FeedRecord, session: FollowSession, limits: FollowLimits) -> Observable<
        FeedMutation
    > {
        let name = record.name
        let isStream = record.registration.kind.isStream
        if let failure = record.unknownKindFailure { return .just(.failed(feed: name, failure)) }
        let refusals = RefusalBackoff()
        let round = { @Sendable () -> Observable<FeedMutation> in
            let work =
                isStream ? followingStream(name, session: session, limits: limits) : polling(name, session: session)
            return work.handleEvents(onNext: { mutation in
                if case .failed(_, .commandFailed) = mutation { refusals.failed() }
            })
        }
        let store = environment.store
        let now = environment.now
        let rounds = Observable<FeedMutation>.repeating(
            round,
            pause: {
                if let wait = refusals.takeWait() { return wait }
                guard !isStream else { return nil }
                // A store that cannot be read now (a lost connection) is tried again at the usual
                // pace; the round then records why it fails.
                guard let record = try? store.feed(named: name) else { return Self.defaultPollInterval }
                return Self.untilDue(record, now: now())
            }, scheduler: environment.scheduler, until: session.ended,
            firstPause: isStream ? nil : Self.untilDue(record, now: now()))
        return owning(name, session: session, wait: limits.busyWait, rounds)
            .catch { error in recordFailure(error, feed: name) }
    }

    /// One round of a stream feed (which this run owns): connected until the session ends
    /// (reconnecting after drops) or the stream ends for good. The feed's lock is taken for each
    /// delivery, not for the connection: a `next` of its stored entries, or `feeds remove`,
    /// waits for a commit at most.
    private func followingStream(_ name: String, session: FollowSession, limits: FollowLimits) -> Observable<
        FeedMutation
    > {
        let store = environment.store
        return Observable<FeedMutation>.deferred {
            let record = try store.feed(named: name)
            var stream = streamSync(record)
            stream.budget = session.budget
            stream.onActivity = { session.touch() }
            return .concat([
                .just(.loaded(record)),
                mutations(
                    ofSteps: .concat([
                        retentionNotice(record), stream.follow(idle: limits.idleTimeout, stop: session.ended),
                    ]),
                    feed: record.name, printing: true, marksDelivered: false, budget: session.budget,
                    locksEachDelivery: true),
            ])
        }
        .catch { error in recordFailure(error, feed: name) }
    }

    /// One round of a polled feed: its `sync` (Retry-After, conditional GET and the feed's
    /// settings as for `feedcli sync`), printing at most what the session's budget allows. It is
    /// cut short when the session ends: every batch is printed and committed in one step, so a
    /// round cut between steps leaves nothing half-delivered.
    private func polling(_ name: String, session: FollowSession) -> Observable<FeedMutation> {
        underFeedLock(name) { record in
            sync(record, printing: true, budget: session.budget).handleEvents(onNext: { mutation in
                if case .stored(_, let count, _) = mutation, count > 0 { session.touch() }
            })
        }
        .take(until: session.ended)
    }

    /// How long until `record` is due again for `follow`: its `--every` (else
    /// `defaultPollInterval`) after its last fetch, and not before the server's Retry-After;
    /// nil for a feed never synced but by name (`--every never`).
    package static func untilDue(_ record: FeedRecord, now: Date) -> Duration? {
        if record.every == EveryDuration.never { return nil }
        let every = record.every ?? defaultPollInterval
        var due = record.lastFetchAt.map { $0.addingTimeInterval(Double(every.components.seconds)) } ?? now
        if let retry = record.retryNotBefore, retry > due { due = retry }
        let seconds = due.timeIntervalSince(now)
        return seconds <= 0 ? .zero : .milliseconds(Int64((min(seconds, 366 * 86_400) * 1000).rounded(.up)))
    }

    /// How often a feed another run owns is tried again while `follow` waits for it.
    static let busyPoll: Duration = .milliseconds(200)

    /// `work` as the owner of `name` (`FeedStoring.attemptOwnership`), the ownership held until
    /// `work` ends: no other run fetches the feed meanwhile. While another run owns it, says so
    /// once (a warning naming that run) and tries again every `busyPoll` on the scheduler,
    /// holding no thread, until `wait` passes or the session ends (its limits, Ctrl-C): then the
    /// feed fails with 75, since this run read nothing of it. A run that owns a feed can own it
    /// for months, so the wait must be said and bounded by the run's own limits.
    func owning(_ name: String, session: FollowSession, wait: Duration, _ work: Observable<FeedMutation>)
        -> Observable<FeedMutation>
    {
        let store = environment.store
        let scheduler = environment.scheduler
        return Observable { observer in
            let poll = SerialDisposable()
            let running = SerialDisposable()
            let deadline = ContinuousClock.now + wait
            let done = Mutex(false)
            let ended = SerialDisposable()
            /// Once: the ownership taken (then `work` runs with it) or given up.
            @Sendable func settle(_ outcome: Result<any HeldFeedLock, FeedFailure>) {
                guard
                    done.withLock({ done in
                        defer { done = true }
                        return !done
                    })
                else { return }
                poll.dispose()
                ended.dispose()
                switch outcome {
                case .success(let ownership):
                    running.replace(with: SubscriptionResource(ownership).bound(to: work).subscribe(observer.send))
                case .failure(let failure):
                    observer.fail(failure)
                }
            }
            @Sendable func attempt() -> Bool {
                do {
                    guard let ownership = try store.attemptOwnership(feed: name) else { return false }
                    settle(.success(ownership))
                } catch {
                    settle(.failure(error))
                }
                return true
            }
            if attempt() { return Disposables.create { running.dispose() } }
            let owner = (try? store.ownerElsewhere(feed: name)) ?? nil
            observer.next(
                .warned(
                    feed: name,
                    "followed by \(owner ?? "another feedcli run"); waiting for it to let go "
                        + "(up to --wait, \(wait.components.seconds) s, within this run's limits)"))
            ended.replace(
                with: session.ended.subscribe { _ in
                    settle(
                        .failure(
                            .temporary("another run followed \(name) for the whole of this run: nothing of it was read")
                        ))
                })
            @Sendable func tryAgain() {
                poll.replace(
                    with: scheduler.schedule(after: Self.busyPoll) {
                        if attempt() { return }
                        guard ContinuousClock.now < deadline else {
                            return settle(
                                .failure(
                                    .temporary(
                                        "another run followed \(name) past --wait (\(wait.components.seconds) s): nothing of it was read"
                                    )))
                        }
                        tryAgain()
                    })
            }
            tryAgain()
            return Disposables.create {
                ended.dispose()
                poll.dispose()
                running.dispose()
            }
        }
    }
}

/// The waits of one feed whose `--exec` command keeps failing: 1 s, then doubling up to 5
/// minutes; a failure long after the last one starts again from 1 s.
private final class RefusalBackoff: Sendable {
    private struct State {
        var inARow = 0
        var pending = false
        var last: ContinuousClock.Instant?
    }
    private let state = Mutex(State())

    func failed() {
        state.withLock { state in
            let now = ContinuousClock.now
            if let last = state.last, now - last > FeedReactor.longestRefusalWait * 2 { state.inARow = 0 }
            state.inARow += 1
            state.pending = true
            state.last = now
        }
    }

    /// The wait before the next round when the last one ended in a refusal; nil otherwise.
    func takeWait() -> Duration? {
        state.withLock { state in
            guard state.pending else { return nil }
            state.pending = false
            let doubled = FeedReactor.firstRefusalWait * (1 << min(state.inARow - 1, 16))
            return min(doubled, FeedReactor.longestRefusalWait)
        }
    }
}
