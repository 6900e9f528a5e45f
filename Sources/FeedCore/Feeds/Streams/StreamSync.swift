import FeedBase
import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials

/// Reading a stream feed (`sse`, `ndjson` and their presets): its connection's items in batches
/// (what arrived together, at most `batchSize` items), each turned into new entries the reactor
/// prints and then commits with the stream's position, as `SyncStep.batch`. A batch is never
/// held back waiting for more: an event that comes alone is printed as it comes, and a fast
/// stream's chunks make batches of their own size.
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
        fetcher: any FeedFetching, format: any PageFormat, reader: StreamReader, record: FeedRecord, scheduler: any Scheduler,
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
    package func once(idle: Duration, stop: Observable<Void>) -> Observable<SyncStep> {
        let progress = Locked(startingProgress())
        return connection(idle: idle, stop: stop, progress: progress, once: true).catch { error in
            if let http = error as? HTTPError, http.kind == .idle { return .empty() }
            throw error
        }
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
            let current = SerialDisposable(), wait = SerialDisposable()
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
                guard phase.withLock({ phase -> Bool in
                    phase.waiting = false
                    return !phase.stopped
                }) else { return }
                let startedAt = ContinuousClock.now
                current.replace(with: connection(idle: idle, stop: stop, progress: progress).subscribe { event in
                    switch event {
                    case .next(let step):
                        observer.next(step)
                    case .completed where phase.value.stopped, .failed where phase.value.stopped:
                        observer.complete()
                    case .failed(let error as StreamEnded):
                        observer.next(.warning(error.description))
                        observer.complete()
                    case .completed, .failed:
                        let error: any Error
                        if case .failed(let failure) = event { error = failure } else { error = HTTPError(.partialBody, message: "the server closed the stream") }
                        guard Self.reconnects(after: error) else { return observer.fail(error) }
                        let retryAfter = (error as? HTTPStatusFailure)?.retryAfter
                        let (delay, count) = reconnection.withLock { reconnection in
                            reconnection.serverDelay = progress.value.retry ?? reconnection.serverDelay
                            let delay = reconnection.delay(afterConnectedFor: ContinuousClock.now - startedAt,
                                                           retryAfter: retryAfter, random: random())
                            return (delay, reconnection.failures)
                        }
                        // Stopped as this connection ended: nothing more to wait for.
                        guard phase.withLock({ phase -> Bool in
                            phase.waiting = !phase.stopped
                            return phase.waiting
                        }) else { return observer.complete() }
                        onReconnect(count, delay, error)
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
        case let http as HTTPError: http.kind != .cancelled && http.kind != .invalidURL && http.kind != .unsupportedProtocol && http.kind != .tls
        case let status as HTTPStatusFailure: status.isRetryable
        case let failure as FeedFailure: failure.exitCode == FeedFailure.temporary("").exitCode
        default: false
        }
    }

    /// What one run of the stream has seen: the last event id (sent on reconnecting), the
    /// server's `retry:`, whether the first commit (which starts the last sync's counts) is done.
    private struct Progress: Sendable {
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
        Progress(lastEventID: record.stream?.lastEventID, resumeURL: reader.format == .jsonLines ? record.resumeURL : nil)
    }

    /// One connection: its items in batches, each made into a `SyncStep.batch`.
    ///
    /// Two stages on two queues: each group of signals is read into items where the stream's
    /// bytes arrive (`FeedFetching.stream`'s queue of its own), and handed over to the work queue,
    /// where its new entries are picked (against the store), printed and committed. So a fast
    /// stream's next group is parsed while the one before is printed and stored. Nothing that
    /// decides what is new runs ahead: that stage sees every commit before it. A group read
    /// by jq waits for its worker off the work queue (`FeedFetching.blocking`), as a page does.
    private func connection(idle: Duration, stop: Observable<Void>, progress: Locked<Progress>, once: Bool = false) -> Observable<SyncStep> {
        let (lastEventID, resumeURL) = progress.withLock { ($0.lastEventID, $0.resumeURL) }
        let chunks: Observable<StreamChunk>
        if reader.format.isWebSocket {
            chunks = webSocketChunks(idle: idle, stop: stop, position: lastEventID, once: once)
        } else {
            let parts = fetcher.stream(resumeURL ?? record.registration.url, feed: record.registration, lastEventID: lastEventID,
                                       idleTimeout: idle)
            chunks = reader.read(parts.take(until: stop), lastEventID: lastEventID)
        }
        let format = self.format
        let readGroups = chunks.map { chunk in
            try Self.groups(of: chunk.signals).map { signals in
                format.waitsForJQ ? ReadGroup(signals: signals, receipt: chunk.receipt)
                    : ReadGroup(signals: signals, receipt: chunk.receipt, isRead: true, items: try items(of: signals))
            }
        }
        return fetcher.handOver(readGroups)
            .flatMap(.concat) { groups -> Observable<SyncStep> in
                let steps = Observable.concat(groups.map { group in
                    if group.isRead { return Observable.deferred { .from(try syncSteps(of: group, progress: progress)) } }
                    return fetcher.blocking { () throws -> ReadGroup in
                        var group = group
                        group.items = try items(of: group.signals)
                        group.isRead = true
                        return group
                    }.flatMap(.concat) { .from(try syncSteps(of: $0, progress: progress)) }
                })
                // Connected: first what the stream sent while no connection was open (the events
                // that arrive meanwhile wait; an entry met in both is delivered once).
                guard let catchUp, groups.contains(where: { $0.signals.contains { if case .connected = $0 { true } else { false } } })
                else { return steps }
                return .concat([catchingUp(catchUp), steps])
            }
    }

    /// One WebSocket connection's chunks from `position`: Jetstream's URL with its `cursor`, a
    /// Nostr relay's `REQ` with its `since`. Read by `sync` (`once`), silence for `idle` ends
    /// it at once, as a quiet SSE stream's does; a follow pings first and waits for the pong.
    private func webSocketChunks(idle: Duration, stop: Observable<Void>, position: String?, once: Bool) -> Observable<StreamChunk> {
        let registration = record.registration
        let url: String, greeting: [[UInt8]]
        switch reader.format {
        case .nostr:
            url = registration.url
            greeting = [Nostr.request(registration.expressions.nostr ?? NostrFilter(), resumingFrom: position, now: now())]
        default:
            url = Jetstream.url(registration.url, resumingFrom: position)
            greeting = []
        }
        let parts = fetcher.webSocket(url, feed: registration, greeting: greeting, idleTimeout: idle,
                                      pongWait: once ? .zero : WebSocketStream.pongWait)
        return reader.read(webSocket: parts.take(until: stop), position: position, endsAtReplay: once)
    }

    /// A group of signals and, once read, its items as a page (nil: it holds none); the
    /// receipt of its bytes goes with it until it is delivered.
    private struct ReadGroup: Sendable {
        var signals: [StreamSignal]
        var receipt: StreamReceipt?
        var isRead = false
        var items: ReadItems?
    }

    /// A group's items read as one page by the feed's format.
    private struct ReadItems: Sendable {
        var items: [FeedItem]
        var next: String?
        var skipped: Int
        var filtered: Int
    }

    /// The items of `signals` (nil when they hold none), read by the feed's format as one page's.
    private func items(of signals: [StreamSignal]) throws -> ReadItems? {
        let items = signals.compactMap { signal in if case .item(let item) = signal { item.json } else { nil } }
        guard !items.isEmpty else { return nil }
        let page = try format.page(ofItems: items, url: record.registration.url)
        // Each item read once: a page's items are read from its body each time they are asked for.
        return ReadItems(items: Array(page.items), next: page.next, skipped: page.skipped.count, filtered: page.filtered)
    }

    /// `signals` cut into groups of at most `batchSize` items, in order.
    package static func groups(of signals: [StreamSignal]) -> [[StreamSignal]] {
        var groups: [[StreamSignal]] = [[]]
        var items = 0
        for signal in signals {
            if case .item = signal {
                if items == batchSize {
                    groups.append([])
                    items = 0
                }
                items += 1
            }
            groups[groups.count - 1].append(signal)
        }
        return groups
    }

    /// The catch-up after a connection: its pages' new entries, oldest first, as batches. A
    /// catch-up that fails is said (a warning) and the stream goes on: it is a courtesy.
    private func catchingUp(_ catchUp: StreamCatchUp) -> Observable<SyncStep> {
        let url: Observable<String> = .deferred {
            switch catchUp.paging {
            case .once: return .just(catchUp.url)
            case .minID:
                // Nothing stored yet: nothing to catch up to (the stream starts the feed).
                guard let newest = try newestStoredID() else { return .empty() }
                return .just(URLQuery.setting("min_id", to: newest, in: URLQuery.setting("limit", to: "40", in: catchUp.url)))
            }
        }
        let shown = Redaction.maskingSecrets(in: catchUp.url)
        return url.flatMap(.concat) { url in catchUpPage(url, number: 1, catchUp) }
            .catch { error in .just(.warning("catch-up from \(shown) failed: \(FeedFailure(fetching: error).map { "\($0)" } ?? "\(error)")")) }
    }

    private func catchUpPage(_ url: String, number: Int, _ catchUp: StreamCatchUp) -> Observable<SyncStep> {
        fetcher.get(url, feed: record.registration).flatMap(.concat) { response -> Observable<SyncStep> in
            let read = { @Sendable () throws -> FeedPage in try catchUp.format.page(from: response) }
            let page = catchUp.format.waitsForJQ ? fetcher.blocking(read) : Observable.deferred { .just(try read()) }
            return page.flatMap(.concat) { page -> Observable<SyncStep> in
                let fetchedAt = now(), stamp = Timestamp.format(fetchedAt)
                let stored = try knownIDs(page.items.map(\.id))
                var seen = Set<String>()
                // A timeline answers newest first: delivered oldest first, as every sync.
                let entries = page.items.reversed().filter { !stored.contains($0.id) && seen.insert($0.id).inserted }
                    .map { $0.entry(feed: record.name, fetchedAt: stamp) }
                let step = SyncStep.batch(FetchedBatch(entries: entries, complete: FetchCommit(
                    fetchedAt: fetchedAt, skipped: .add(page.skipped.count), filtered: .add(page.filtered), kept: .add(page.items.count))))
                guard catchUp.paging == .minID, number < catchUp.maxPages, let newest = page.items.first?.id
                else { return .just(step) }
                // `--max-entries` counts what the catch-up delivers too (the delivery spends the
                // budget, before the next page is asked for): once it is spent, the rest is read
                // again from the newest stored entry next time.
                let next = URLQuery.setting("min_id", to: newest, in: url)
                return .concat([.just(step), .deferred { budget?.isSpent == true ? .empty() : catchUpPage(next, number: number + 1, catchUp) }])
            }
        }
    }

    /// What `group` gives the reactor: a warning for each line skipped, then the batch of its
    /// new entries with the position after them (none when it holds nothing to deliver or commit).
    private func syncSteps(of group: ReadGroup, progress: Locked<Progress>) throws -> [SyncStep] {
        var skipped: [SkippedItem] = []
        var notices: [SyncStep] = []
        var longIDs = 0
        for signal in group.signals {
            switch signal {
            case .skipped(let line, let why):
                skipped.append(SkippedItem(position: line, page: record.registration.url, why: why))
            case .item(let item) where !Self.isUsablePosition(item.lastEventID):
                longIDs += 1
            case .ignored(_, let eventID) where !Self.isUsablePosition(eventID):
                longIDs += 1
            case .notice(let notice):
                notices.append(.warning(notice))
            default:
                break
            }
        }
        let batch = try batch(of: group, skippedLines: skipped.count, progress: progress)
        let firstLongID = longIDs > 0 && progress.withLock { progress -> Bool in
            defer { progress.saidLongID = true }
            return !progress.saidLongID
        }
        let longIDWarning: [SyncStep] = !firstLongID ? [] : [.warning(
            "an event id longer than \(Self.longestEventID) bytes is ignored: not a position to resume from "
            + "(it would be a request header); the last usable one is kept")]
        return notices + skipped.map { .warning($0.message) } + longIDWarning + (batch.map { [$0] } ?? [])
    }

    /// The longest event id kept as the stream's position: it becomes the `Last-Event-ID`
    /// header of every later connection, and an id of megabytes made each of them fail before
    /// it was sent (curl refuses such a header), for good.
    package static let longestEventID = 1024

    /// Whether `id` may become the stream's position (nil: no id, which changes nothing).
    package static func isUsablePosition(_ id: String?) -> Bool {
        (id?.utf8.count ?? 0) <= longestEventID
    }

    /// The batch of new entries of `group`, with the position after them; nil when it holds
    /// nothing to deliver or commit.
    private func batch(of group: ReadGroup, skippedLines: Int, progress: Locked<Progress>) throws -> SyncStep? {
        var lastEventID = progress.value.lastEventID
        var lastEventAt: Date?
        for signal in group.signals {
            switch signal {
            case .connected, .retry, .skipped, .notice, .endOfReplay, .closed:
                if case .retry(let delay) = signal { progress.withLock { $0.retry = delay } }
            case .item(let item):
                if Self.isUsablePosition(item.lastEventID) { lastEventID = item.lastEventID ?? lastEventID }
                lastEventAt = item.arrivedAt
            case .ignored(let why, let eventID):
                onIgnored(why)
                if Self.isUsablePosition(eventID) { lastEventID = eventID ?? lastEventID }
            }
        }
        progress.withLock { $0.lastEventID = lastEventID }
        guard let lastEventAt, let page = group.items else { return nil }
        onActivity()
        let fetchedAt = now()
        var seen = Set<String>()
        let stored = try knownIDs(page.items.map(\.id))
        var entries: [Entry] = []
        let stamp = Timestamp.format(fetchedAt)
        for item in page.items where !stored.contains(item.id) && seen.insert(item.id).inserted {
            entries.append(item.entry(feed: record.name, fetchedAt: stamp))
        }
        let position = StreamPosition(lastEventID: lastEventID, lastEventAt: lastEventAt)
        // An NDJSON stream's cursor, read from the batch as a json feed reads its next page's.
        var resume = FetchCommit.Cursor.keep
        if reader.format == .jsonLines, let next = page.next {
            resume = .set(next)
            progress.withLock { $0.resumeURL = next }
        }
        let first = progress.withLock { progress in
            defer { progress.counted = true }
            return !progress.counted
        }
        func count(_ value: Int) -> FetchCommit.SkipCount { first ? .set(value) : .add(value) }
        let complete = FetchCommit(fetchedAt: fetchedAt, resume: resume, skipped: count(page.skipped + skippedLines),
                                   filtered: count(page.filtered), kept: count(page.items.count), stream: position)
        var inPart = complete
        inPart.stream = nil  // delivered in part: the position stays where the last whole batch left it
        inPart.resume = .keep
        let partial = inPart
        return .batch(FetchedBatch(entries: entries, complete: complete, partial: { _ in partial }))
    }
}
