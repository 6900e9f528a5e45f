import FeedBase
import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials

/// A stream's signals made batches: cut into groups of at most `batchSize` items, each read as a
/// page by the feed's format and turned into the entries and position a commit stores.
extension StreamSync {
    /// A group of signals and, once read, its items as a page (nil: it holds none); the
    /// receipts of its bytes go with it until it is delivered.
    struct ReadGroup: Sendable {
        var signals: [StreamSignal]
        var receipts: [StreamReceipt]
        var isRead = false
        var items: ReadItems?

        /// Takes `items` as what this group's signals read as, letting their bytes go.
        mutating func markRead(_ items: ReadItems?) {
            self.items = items
            isRead = true
            for index in signals.indices {
                guard case .item(var item) = signals[index] else { continue }
                item.json = []
                signals[index] = .item(item)
            }
        }

        /// How many of its signals are items.
        var itemCount: Int { signals.count { if case .item = $0 { true } else { false } } }

        /// `next` appended to this group, in place (a run of joins copies each signal once).
        mutating func join(_ next: ReadGroup) {
            signals += next.signals
            receipts += next.receipts
            guard let more = next.items else { return }
            guard items != nil else {
                items = more
                return
            }
            items?.items += more.items
            if let next = more.next { items?.next = next }
            items?.skipped += more.skipped
            items?.filtered += more.filtered
        }
    }

    /// The groups of chunks that waited for the work queue together, adjacent ones joined while
    /// together they hold at most `batchSize` items and are read alike: what arrived while a
    /// batch was stored is stored in one commit (Wikimedia's events, 1.3 KiB each, come some
    /// twelve to a chunk of curl's).
    static func joined(_ chunks: [[ReadGroup]]) -> [ReadGroup] {
        var groups: [ReadGroup] = []
        var lastItems = 0
        for group in chunks.joined() {
            let items = group.itemCount
            if let last = groups.indices.last, groups[last].isRead == group.isRead, lastItems + items <= batchSize {
                groups[last].join(group)
                lastItems += items
            } else {
                groups.append(group)
                lastItems = items
            }
        }
        return groups
    }

    /// A group's items read as one page by the feed's format.
    struct ReadItems: Sendable {
        var items: [FeedItem]
        var next: String?
        var skipped: Int
        var filtered: Int
    }

    /// The items of `signals` (nil when they hold none), read by the feed's format as one page's.
    func items(of signals: [StreamSignal]) throws -> ReadItems? {
        let items = signals.compactMap { signal in if case .item(let item) = signal { item.json } else { nil } }
        guard !items.isEmpty else { return nil }
        let page = try format.page(ofItems: items, url: record.registration.url)
        // Each item read once: a page's items are read from its body each time they are asked for.
        return ReadItems(
            items: Array(page.items), next: page.next, skipped: page.skipped.count, filtered: page.filtered)
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

    /// What `group` gives the reactor: a warning for each line skipped, then the batch of its
    /// new entries with the position after them (none when it holds nothing to deliver or commit).
    func syncSteps(of group: ReadGroup, progress: Locked<Progress>) throws -> [SyncStep] {
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
        let firstLongID =
            longIDs > 0
            && progress.withLock { progress -> Bool in
                defer { progress.saidLongID = true }
                return !progress.saidLongID
            }
        let longIDWarning: [SyncStep] =
            !firstLongID
            ? []
            : [
                .warning(
                    "an event id longer than \(Self.longestEventID) bytes is ignored: not a position to resume from "
                        + "(it would be a request header); the last usable one is kept")
            ]
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
        let complete = FetchCommit(
            fetchedAt: fetchedAt, resume: resume, skipped: count(page.skipped + skippedLines),
            filtered: count(page.filtered), kept: count(page.items.count), stream: position)
        var inPart = complete
        inPart.stream = nil  // delivered in part: the position stays where the last whole batch left it
        inPart.resume = .keep
        let partial = inPart
        var batch = FetchedBatch(entries: entries, complete: complete, partial: { _ in partial })
        batch.receipts = group.receipts
        return .batch(batch)
    }
}

extension StreamSync.ReadGroup {
    /// A group read now: its items become `items`, and the bytes they were read from are let go
    /// (a huge message is then held as its entry alone until it is stored, not also as the
    /// message it came in).
    init(
        signals: [StreamSignal], receipts: [StreamReceipt],
        reading read: ([StreamSignal]) throws -> StreamSync.ReadItems?
    ) rethrows {
        self.init(signals: signals, receipts: receipts)
        markRead(try read(signals))
    }
}
