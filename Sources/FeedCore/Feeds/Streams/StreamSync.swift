import FeedBase
import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials

/// Reading a stream feed (`sse`, `ndjson` and their presets): its connection's items in batches
/// (what arrived together, at most `batchSize` items), each turned into new entries the reactor
/// prints and then commits with the stream's position, as `SyncStep.batch`. A batch is never
/// held back waiting for more: an event that comes alone is printed as it comes, and the chunks
/// of a stream faster than its store, which wait for the work queue together, are joined into
/// batches of up to `batchSize` (`joined`): one commit for them, not one a chunk of curl's.
///
/// An item becomes an entry as an item of a page would: a batch is read as one page (a JSON
/// array of the items' objects) by the feed's format (`linked`'s rules, or the feed's jq
/// expressions and filter), and entries are unique per feed by id, so an event a server replays
/// after a reconnection is never delivered twice.
///
/// `once` connects once and ends when the stream is quiet (`sync`); `follow` reconnects after
/// every drop (`StreamReconnection`), sending the last event id as `Last-Event-ID`, until `stop`
/// fires, the server ends the stream (204), or a failure that reconnecting cannot mend.
package struct StreamSync: Sendable {
    package let fetcher: any FeedFetching
    /// How a batch of items is read (as a page).
    package let format: any PageFormat
    package let reader: StreamReader
    package let record: FeedRecord
    package let scheduler: any Scheduler
    package let random: @Sendable () -> Double
    package let now: @Sendable () -> Date
    /// Which of these ids the store holds.
    package let knownIDs: @Sendable ([String]) throws -> Set<String>
    /// How many more entries the run may deliver (`--max-entries`; spent where entries are
    /// delivered, `FeedReactor.settle`): a catch-up asks for no further page once it is spent.
    package var budget: EntryBudget?
    /// Told of each reconnection (for `-v`): the attempt, the wait, why.
    package var onReconnect: @Sendable (_ attempt: Int, _ delay: Duration, _ error: any Error) -> Void = { _, _, _ in }
    /// Told of each event that is not an item (for `-v`).
    package var onIgnored: @Sendable (_ why: String) -> Void = { _ in }
    /// Told of each batch that held items (`follow --until-idle` waits from the last one).
    package var onActivity: @Sendable () -> Void = {}
    /// What is read after every connection for what the stream sent meanwhile; nil: nothing.
    package var catchUp: StreamCatchUp?
    /// The id of the feed's newest stored entry (where a Mastodon catch-up starts).
    package var newestStoredID: @Sendable () throws -> String? = { nil }

    package init(
        fetcher: any FeedFetching, format: any PageFormat, reader: StreamReader, record: FeedRecord,
        scheduler: any Scheduler,
        random: @escaping @Sendable () -> Double, now: @escaping @Sendable () -> Date,
        knownIDs: @escaping @Sendable ([String]) throws -> Set<String>
    ) {
        self.fetcher = fetcher
        self.format = format
        self.reader = reader
        self.record = record
        self.scheduler = scheduler
        self.random = random
        self.now = now
        self.knownIDs = knownIDs
    }

    /// The most items one batch (one commit) holds: the contract commits a stream's entries
    /// at least every 100, so a kill prints at most that many again; larger batches would pay each
    /// commit's fixed cost for more entries, and break that promise.
    package static let batchSize = 100

    /// One connection from the stored position, read until `idle` passes without a byte (then
    /// it ends as a stream that went quiet should: with what it read) or `stop` fires.
    ///
    /// Silence before the stream answered at all (a server that accepts the connection and
    /// never answers the request or the upgrade) is no quiet stream: it is a timeout (75).
    package func once(idle: Duration, stop: Observable<Void>) -> Observable<SyncStep> {
        let progress = Locked(startingProgress())
        let answered = Locked(false)
        let unanswered = HTTPError(.timedOut, message: "timed out: the server took the connection and sent no answer")
        return Observable.concat([
            connection(idle: idle, stop: stop, progress: progress, once: true)
                .handleEvents(onNext: { step in
                    if case .connected = step { answered.withLock { $0 = true } }
                })
                .catch { error in
                    guard let http = error as? HTTPError, http.kind == .idle else { throw error }
                    guard answered.value else { throw unanswered }
                    return .empty()
                },
            // Ended (by `--timeout`) while still waiting for the answer: a timeout as well.
            .deferred { answered.value ? .empty() : .fail(unanswered) },
        ])
    }

    /// Connections one after another until `stop` fires, each from the last event id seen. The
    /// wait between two connections (backoff, a `Retry-After` of up to 7 days) ends with `stop`
    /// too: the session's limits (`--max-time`, `--until-idle`) and Ctrl-C end a follow that is
    /// waiting, not only one that is connected.
    package func follow(idle: Duration, stop: Observable<Void>) -> Observable<SyncStep> {
        let progress = Locked(startingProgress())
        return Observable { observer in
            // The connection and the wait before the next one apart: a connection that ends
            // before `subscribe` returns (a canned one) must not replace the wait it scheduled.
            let current = SerialDisposable()
            let wait = SerialDisposable()
            let reconnection = Locked(StreamReconnection())
            // Whether `stop` fired, and whether the stream is between connections (then `stop`
            // ends it; a connection open then ends by itself, `take(until: stop)`).
            let phase = Locked((stopped: false, waiting: true))  // "waiting" for the first connection
            let watch = stop.subscribe { _ in
                let wasWaiting = phase.withLock { phase -> Bool in
                    phase.stopped = true
                    return phase.waiting
                }
                guard wasWaiting else { return }
                wait.dispose()
                observer.complete()
            }
            @Sendable func attempt() {
                // Stopped while waiting: the watch has ended the stream.
                guard
                    phase.withLock({ phase -> Bool in
                        phase.waiting = false
                        return !phase.stopped
                    })
                else { return }
                let startedAt = ContinuousClock.now
                // Whether this connection answered as a stream: one that ends before it did is
                // a failure of the feed (said), a drop after it is a stream's life (not said).
                let answered = Locked(false)
                current.replace(
                    with: connection(idle: idle, stop: stop, progress: progress).subscribe { event in
                        switch event {
                        case .next(let step):
                            if case .connected = step { answered.withLock { $0 = true } }
                            observer.next(step)
                        case .completed where phase.value.stopped, .failed where phase.value.stopped:
                            observer.complete()
                        case .failed(let error as StreamEnded):
                            observer.next(.warning(error.description))
                            observer.complete()
                        case .completed, .failed:
                            let error: any Error
                            if case .failed(let failure) = event {
                                error = failure
                            } else {
                                error = HTTPError(.partialBody, message: "the server closed the stream")
                            }
                            guard Self.reconnects(after: error) else { return observer.fail(error) }
                            let retryAfter = (error as? HTTPStatusFailure)?.retryAfter
                            let (delay, count) = reconnection.withLock { reconnection in
                                reconnection.serverDelay = progress.value.retry ?? reconnection.serverDelay
                                let delay = reconnection.delay(
                                    afterConnectedFor: ContinuousClock.now - startedAt,
                                    retryAfter: retryAfter, random: random())
                                return (delay, reconnection.failures)
                            }
                            // Stopped as this connection ended: nothing more to wait for.
                            guard
                                phase.withLock({ phase -> Bool in
                                    phase.waiting = !phase.stopped
                                    return phase.waiting
                                })
                            else { return observer.complete() }
                            onReconnect(count, delay, error)
                            if !answered.value {
                                observer.next(
                                    .connectionFailed(FeedFailure(fetching: error) ?? .temporary("\(error)")))
                            }
                            wait.replace(with: scheduler.schedule(after: delay) { attempt() })
                        }
                    })
            }
            attempt()
            return Disposables.create {
                watch.dispose()
                wait.dispose()
                current.dispose()
            }
        }
    }

    /// Whether a dropped connection is tried again: transport failures, silence, a server that
    /// closed the stream, 408/429/5xx. Not a refusal (4xx), a wrong `Content-Type`, a 204.
    package static func reconnects(after error: any Error) -> Bool {
        switch error {
        case let http as HTTPError:
            http.kind != .cancelled && http.kind != .invalidURL && http.kind != .unsupportedProtocol
                && http.kind != .tls
        case let status as HTTPStatusFailure: status.isRetryable
        case let failure as FeedFailure: failure.exitCode == FeedFailure.temporary("").exitCode
        default: false
        }
    }

    /// What one run of the stream has seen: the last event id (sent on reconnecting), the
    /// server's `retry:`, whether the first commit (which starts the last sync's counts) is done.
    struct Progress: Sendable {
        var lastEventID: String?
        var retry: Duration?
        var counted = false
        /// An NDJSON stream's resume URL: its own URL with the last batch's cursor
        /// (`--cursor EXPR --cursor-param NAME`, as a json feed pages).
        var resumeURL: String?
        /// Whether an event id too long to resume from was said (once a run).
        var saidLongID = false
    }

    /// The stream's progress at the start of a run: its stored position.
    private func startingProgress() -> Progress {
        Progress(
            lastEventID: record.stream?.lastEventID, resumeURL: reader.format == .jsonLines ? record.resumeURL : nil)
    }

    /// One connection: its items in batches, each made into a `SyncStep.batch`.
    ///
    /// Two stages on two queues: each group of signals is read into items where the stream's
    /// bytes arrive (`FeedFetching.stream`'s queue of its own), and handed over to the work queue,
    /// where its new entries are picked (against the store), printed and committed. So a fast
    /// stream's next group is parsed while the one before is printed and stored. Nothing that
    /// decides what is new runs ahead: that stage sees every commit before it. A group read
    /// by jq waits for its worker off the work queue (`FeedFetching.blocking`), as a page does.
    private func connection(idle: Duration, stop: Observable<Void>, progress: Locked<Progress>, once: Bool = false)
        -> Observable<SyncStep>
    {
        let (lastEventID, resumeURL) = progress.withLock { ($0.lastEventID, $0.resumeURL) }
        let chunks: Observable<StreamChunk>
        if reader.format.isWebSocket {
            chunks = webSocketChunks(idle: idle, stop: stop, position: lastEventID, once: once)
        } else {
            let parts = fetcher.stream(
                resumeURL ?? record.registration.url, feed: record.registration, lastEventID: lastEventID,
                idleTimeout: idle)
            chunks = reader.read(parts.take(until: stop), lastEventID: lastEventID)
        }
        let format = self.format
        let readGroups = chunks.map { chunk in
            try Self.groups(of: chunk.signals).map { signals in
                let receipts = chunk.receipts
                return format.waitsForJQ
                    ? ReadGroup(signals: signals, receipts: receipts)
                    : try ReadGroup(signals: signals, receipts: receipts, reading: items(of:))
            }
        }
        return fetcher.handOver(readGroups, joiningWaiting: Self.joined)
            .flatMap(.concat) { groups -> Observable<SyncStep> in
                let steps = Observable.concat(
                    groups.map { group in
                        if group.isRead {
                            return Observable.deferred { .from(try syncSteps(of: group, progress: progress)) }
                        }
                        return fetcher.blocking { () throws -> ReadGroup in
                            var group = group
                            group.markRead(try items(of: group.signals))
                            return group
                        }.flatMap(.concat) { .from(try syncSteps(of: $0, progress: progress)) }
                    })
                guard
                    groups.contains(where: { $0.signals.contains { if case .connected = $0 { true } else { false } } })
                else { return steps }
                // Connected: said, then first what the stream sent while no connection was open
                // (the events that arrive meanwhile wait; an entry met in both is delivered once).
                guard let catchUp else { return .concat([.just(.connected), steps]) }
                return .concat([.just(.connected), catchingUp(catchUp), steps])
            }
    }

    /// One WebSocket connection's chunks from `position`: Jetstream's URL with its `cursor`, a
    /// Nostr relay's `REQ` with its `since`. Read by `sync` (`once`), silence for `idle` ends
    /// it at once, as a quiet SSE stream's does; a follow pings first and waits for the pong.
    private func webSocketChunks(idle: Duration, stop: Observable<Void>, position: String?, once: Bool) -> Observable<
        StreamChunk
    > {
        let registration = record.registration
        let url: String
        let greeting: [[UInt8]]
        switch reader.format {
        case .nostr:
            url = registration.url
            greeting = [
                Nostr.request(registration.expressions.nostr ?? NostrFilter(), resumingFrom: position, now: now())
            ]
        default:
            url = Jetstream.url(registration.url, resumingFrom: position, now: now())
            greeting = []
        }
        let parts = fetcher.webSocket(
            url, feed: registration, greeting: greeting, idleTimeout: idle,
            pongWait: once ? .zero : WebSocketStream.pongWait)
        return reader.read(webSocket: parts.take(until: stop), position: position, endsAtReplay: once)
    }
}
