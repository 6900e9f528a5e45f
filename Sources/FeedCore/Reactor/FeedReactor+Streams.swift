import FeedBase
import FeedKinds
import FeedModel
import FeedReactive
import FoundationEssentials
import Synchronization

/// Stream feeds: `follow` (a session of connections that print and commit as events arrive) and
/// the `sync` of a stream feed (one connection, read until it is quiet).
extension FeedReactor {
    /// How long a stream read by `sync` may be quiet before the read ends: a server that replays
    /// sends what it holds at once.
    package static let syncQuietTime: Duration = .seconds(2)

    /// Follows `names` (every stream feed when empty), each on its own connection under its lock,
    /// until `limits` or the environment's `stop` ends the session. One feed's failure is
    /// recorded as any feed's and the others go on.
    package func follow(_ names: [String], limits: FollowLimits) -> Observable<FeedMutation> {
        let store = environment.store, environment = self.environment
        return .deferred {
            let records = names.isEmpty
                ? try store.feeds().filter(\.registration.kind.isStream)
                : try names.map { name throws(FeedFailure) in try store.feed(named: name) }
            if let failure = records.lazy.compactMap(\.unknownKindFailure).first { throw failure }
            if let polled = records.first(where: { !$0.registration.kind.isStream }) {
                throw FeedFailure.usage("\(polled.name) is a \(polled.registration.kind.rawValue) feed, not a stream: "
                                        + "`feedcli sync \(polled.name)` reads it")
            }
            guard !records.isEmpty else {
                throw FeedFailure.usage("no stream feed to follow: add one with `feedcli feeds add NAME URL --kind sse` (or ndjson)")
            }
            let session = FollowSession(limits: limits, scheduler: environment.scheduler, stop: environment.stop)
            let work = Observable.from(records.map(\.name)).flatMap(.merge(maxConcurrent: records.count)) { name in
                let following = perFeed(name) { record in
                    var stream = streamSync(record)
                    stream.budget = session.budget
                    stream.onActivity = { session.touch() }
                    return settle(.concat([retentionNotice(record), stream.follow(idle: limits.idleTimeout, stop: session.ended)]),
                                  feed: record.name, printing: true, marksDelivered: false)
                }
                return Observable.concat([untilFree(name, session: session, wait: limits.busyWait), following])
                    .catch { error in recordFailure(error, feed: name) }
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

    /// How often a feed another run holds is tried again while `follow` waits for it.
    static let busyPoll: Duration = .milliseconds(200)

    /// Completes once no other run holds `name` (at once when none does). While another does, it
    /// says so once (a warning) and tries again every `busyPoll` on the scheduler, holding no
    /// thread, until `wait` passes or the session ends (its limits, Ctrl-C): then the feed fails
    /// with 75, since this run read nothing of it. A run holding a stream feed can hold it for
    /// hours, so the wait must be said and bounded by the run's own limits, not by a lock call.
    func untilFree(_ name: String, session: FollowSession, wait: Duration) -> Observable<FeedMutation> {
        let store = environment.store, scheduler = environment.scheduler
        return Observable { observer in
            let poll = SerialDisposable()
            let deadline = ContinuousClock.now + wait
            let done = Mutex(false)
            @Sendable func end(_ failure: FeedFailure?) {
                guard done.withLock({ done in defer { done = true }; return !done }) else { return }
                poll.dispose()
                if let failure { observer.fail(failure) } else { observer.complete() }
            }
            @Sendable func isFree() -> Bool {
                do {
                    return try store.attemptLock(feed: name) != nil  // the probe's lock is let go at once
                } catch {
                    end(error)
                    return false
                }
            }
            guard !isFree() else {
                end(nil)
                return Disposables.empty
            }
            observer.next(.warned(feed: name, "another run is reading it; waiting for that run to let it go "
                                  + "(up to --wait, \(wait.components.seconds) s, within this run's limits)"))
            let ended = session.ended.subscribe { _ in
                end(.temporary("another run held \(name) for the whole of this run: nothing of it was read"))
            }
            @Sendable func tryAgain() {
                poll.replace(with: scheduler.schedule(after: Self.busyPoll) {
                    if isFree() { return end(nil) }
                    guard ContinuousClock.now < deadline else {
                        return end(.temporary("another run held \(name) past --wait (\(wait.components.seconds) s): nothing of it was read"))
                    }
                    tryAgain()
                })
            }
            tryAgain()
            return Disposables.create {
                ended.dispose()
                poll.dispose()
            }
        }
    }

    /// The steps of a stream feed's `sync`: one connection from the stored position, read until
    /// it is quiet for `syncQuietTime` (or `--timeout` passes).
    /// A stream feed added before retention keeps every event until its user chooses: the first
    /// run that reads it says so once, with how to bound it, and records the choice of `all`.
    package func retentionNotice(_ record: FeedRecord) -> Observable<SyncStep> {
        guard record.registration.kind.isStream, !record.keepIsChosen else { return .empty() }
        let store = environment.store
        return .deferred {
            try store.setRetention(feed: record.name, Retention(keep: .all, remember: record.retention.remember))
            return .just(.warning("keeps every event (it was added before feedcli pruned anything): to bound it, "
                                  + "feedcli feeds set \(record.name) --keep 7d (or a count like 100000); said once"))
        }
    }

    package func syncStream(_ record: FeedRecord) -> Observable<SyncStep> {
        let scheduler = environment.scheduler, timeout = environment.options.timeout
        let stream = streamSync(record)
        return Observable { observer in
            let ended = Subject<Void>()
            let once = Mutex(false)
            let end = { @Sendable in
                guard once.withLock({ fired in defer { fired = true }; return !fired }) else { return }
                ended.send(.completed)
            }
            let timer = scheduler.schedule(after: timeout) { end() }
            let stop = environment.stop.subscribe { _ in end() }
            let subscription = stream.once(idle: Self.syncQuietTime, stop: ended.observable).subscribe(observer.send)
            return Disposables.create {
                subscription.dispose()
                timer.dispose()
                stop.dispose()
            }
        }
    }

    /// A stream feed's reader, as the environment has it.
    package func streamSync(_ record: FeedRecord) -> StreamSync {
        let registration = record.registration, store = environment.store, logger = environment.logger
        let format = registration.pageFormat(jq: environment.options.jq) ?? LinkedFeed()
        let reader = StreamReader(format: registration.kind.streamFormat ?? .serverSentEvents,
                                  eventTypes: registration.effectiveExpressions.events,
                                  maxEventSize: environment.options.maxBodySize, url: registration.url, now: environment.now)
        var stream = StreamSync(fetcher: environment.fetcher, format: format, reader: reader, record: record,
                                scheduler: environment.scheduler, random: environment.random, now: environment.now,
                                knownIDs: { ids in try store.knownIDs(feed: registration.name, among: ids) })
        stream.onReconnect = { attempt, delay, error in
            logger.info("\(registration.name): reconnecting in \(delay.milliseconds) ms (attempt \(attempt)) after \(FeedFailure(fetching: error).map { "\($0)" } ?? "\(error)")")
        }
        stream.onIgnored = { why in logger.info("\(registration.name): not an entry: \(why)") }
        stream.catchUp = StreamCatchUp.of(registration, jq: environment.options.jq,
                                          maxPages: environment.options.maxPages ?? registration.kind.defaultMaxPages)
        stream.newestStoredID = { try store.newestEntryID(feed: registration.name) }
        return stream
    }
}
