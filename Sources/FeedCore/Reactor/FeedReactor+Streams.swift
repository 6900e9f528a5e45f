import FeedBase
import FeedKinds
import FeedModel
import FeedReactive
import FoundationEssentials
import Synchronization

/// Stream feeds: their reader, and the `sync` of a stream feed (one connection, read until it is
/// quiet); `follow` is in `FeedReactor+Follow`.
extension FeedReactor {
    /// How long a stream read by `sync` may be quiet before the read ends: a server that replays
    /// sends what it holds at once.
    package static let syncQuietTime: Duration = .seconds(2)

    /// The steps of a stream feed's `sync`: one connection from the stored position, read until
    /// it is quiet for `syncQuietTime` (or `--timeout` passes).
    /// A stream feed added before retention keeps every event until its user chooses: the first
    /// run that reads it says so once, with how to bound it, and records the choice of `all`.
    package func retentionNotice(_ record: FeedRecord) -> Observable<SyncStep> {
        guard record.registration.kind.isStream, !record.keepIsChosen else { return .empty() }
        let store = environment.store
        return .deferred {
            try store.setRetention(feed: record.name, Retention(keep: .all, remember: record.retention.remember))
            return .just(
                .warning(
                    "keeps every event (it was added before feedcli pruned anything): to bound it, "
                        + "feedcli feeds set \(record.name) --keep 7d (or a count like 100000); said once"))
        }
    }

    package func syncStream(_ record: FeedRecord) -> Observable<SyncStep> {
        let scheduler = environment.scheduler
        let timeout = environment.options.timeout
        let stream = streamSync(record)
        return Observable { observer in
            let ended = Subject<Void>()
            let once = Mutex(false)
            let end = { @Sendable in
                guard
                    once.withLock({ fired in
                        defer { fired = true }
                        return !fired
                    })
                else { return }
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
        let registration = record.registration
        let store = environment.store
        let logger = environment.logger
        let format = registration.pageFormat(jq: environment.options.jq) ?? LinkedFeed()
        var reader = StreamReader(
            format: registration.kind.streamFormat ?? .serverSentEvents,
            eventTypes: registration.effectiveExpressions.events,
            maxEventSize: environment.options.maxBodySize, url: registration.url, now: environment.now)
        reader.nostrFilter = registration.expressions.nostr
        var stream = StreamSync(
            fetcher: environment.fetcher, format: format, reader: reader, record: record,
            scheduler: environment.scheduler, random: environment.random, now: environment.now,
            knownIDs: { ids in try store.knownIDs(feed: registration.name, among: ids) })
        stream.onReconnect = { attempt, delay, error in
            logger.info(
                "\(registration.name): reconnecting in \(delay.milliseconds) ms (attempt \(attempt)) after \(FeedFailure(fetching: error).map { "\($0)" } ?? "\(error)")"
            )
        }
        stream.onIgnored = { why in logger.info("\(registration.name): not an entry: \(why)") }
        stream.catchUp = StreamCatchUp.of(
            registration, jq: environment.options.jq,
            maxPages: environment.options.maxPages ?? registration.kind.defaultMaxPages)
        stream.newestStoredID = { try store.newestEntryID(feed: registration.name) }
        return stream
    }
}
