import FeedBase
import FeedModel
import FeedStore
import FeedStoreContract
import Foundation

/// A `FeedStoring` in memory, for reactor tests that need no SQLite file: the same semantics as
/// `FeedStore` for what the reactor uses (unique ids per feed, entries in the order of their
/// numbers, backfills numbered below every stored entry, commits that clear the last error,
/// cursors that change only as a commit says), and a record of every write. `StoreContractTests`
/// runs one suite against both stores, so the two cannot drift apart unnoticed.
public final class MemoryStore: FeedStoring {
    private struct Contents {
        var records: [String: FeedRecord] = [:]
        var entries: [String: [Entry]] = [:]
        var writes: [String] = []
        /// The last number given counting up, and the lowest given counting down (backfill).
        var numbers: Int64 = 0
        var floor: Int64 = 0

        mutating func reserve(_ count: Int, backfill: Bool) -> [Int64] {
            let n = Int64(count)
            guard n > 0 else { return [] }
            if backfill {
                floor -= n
                return Array(floor..<(floor + n))
            }
            numbers += n
            return Array((numbers - n + 1)...numbers)
        }
        var nothingNewBatches: [[String]] = []
        var failsCommits = false
        var locksTaken: [String] = []
        var locksHeld = 0
        var lookUps = 0
        var unreadLookUps = 0
        /// Remembered ids (`RememberedID` keys) and until when, nil for ever.
        var remembered: [Int64: Int64?] = [:]

        /// One prune step of `feed` after a commit, as the stores take it (`PruneStep`).
        mutating func prune(_ feed: String, now: Date, stored: Int) {
            let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
            remembered = remembered.filter { _, until in until.map { $0 >= seconds } ?? true }
            guard var record = records[feed] else { return }
            let held = entries[feed] ?? []
            record.total = held.count
            guard let step = PruneStep.plan(record, now: now, stored: stored) else { return }
            let newest = held.last?.seq
            let gone = held.prefix(step.limit).filter { entry in
                step.storedBefore.map { entry.fetchedAt < $0 && entry.seq != newest } ?? true
            }
            guard !gone.isEmpty else { return }
            let numbers = Set(gone.map(\.seq))
            entries[feed] = held.filter { !numbers.contains($0.seq) }
            record.pruned += gone.count
            record.prunedUnread += gone.count { !$0.read }
            records[feed] = record
            if step.remembers {
                for entry in gone {
                    let key = RememberedID.key(feed: feed, id: entry.id)
                    let until: Int64?? = remembered[key]
                    switch (until, step.rememberUntil) {
                    case (.some(.none), _), (_, nil): remembered[key] = .some(nil)
                    case (.some(.some(let old)), .some(let new)): remembered[key] = max(old, new)
                    case (.none, .some(let new)): remembered[key] = new
                    }
                }
            }
        }
    }
    private let contents = Locked(Contents())

    public init(_ registrations: [FeedRegistration], locksNeedKnownFeeds: Bool = true) {
        self.locksNeedKnownFeeds = locksNeedKnownFeeds
        contents.withLock { contents in
            // As `feeds add` registers them: the kind's retention, chosen.
            for registration in registrations {
                contents.records[registration.name] = FeedRecord(
                    registration: registration, retention: .defaults(for: registration.kind),
                    keepIsChosen: true)
            }
        }
    }

    /// Each write, in order (`commit`, `delivered`, `failure`).
    public var writes: [String] { contents.value.writes }

    /// The feeds of each `commitNothingNew` call, in order: which quiet commits went together.
    public var nothingNewBatches: [[String]] { contents.value.nothingNewBatches }

    /// Makes `commitNothingNew` fail as a full disk would.
    public func failCommits() { contents.withLock { $0.failsCommits = true } }

    public func entries(_ feed: String) -> [Entry] { contents.value.entries[feed] ?? [] }

    public func feeds() throws(FeedFailure) -> [FeedRecord] {
        contents.value.records.values.sorted { $0.name < $1.name }
    }

    public func feed(named name: String) throws(FeedFailure) -> FeedRecord {
        let record = contents.withLock { contents in
            contents.lookUps += 1
            return contents.records[name]
        }
        guard let record else { throw .notFound("no feed named \(name)") }
        return record
    }

    /// How often a feed was looked up by name.
    public var lookUps: Int { contents.value.lookUps }

    /// As `FeedStore` (a lock is a file named after its feed) unless made otherwise, as
    /// `PostgresStore`'s advisory locks are.
    public let locksNeedKnownFeeds: Bool

    /// The feeds whose lock was taken, in order, and the locks held now.
    public var locksTaken: [String] { contents.value.locksTaken }
    public var locksHeld: Int { contents.value.locksHeld }

    public func lock(feed: String) throws(FeedFailure) -> any HeldFeedLock { takeLock(feed) }

    public func attemptLock(feed: String) throws(FeedFailure) -> (any HeldFeedLock)? { takeLock(feed) }

    private func takeLock(_ feed: String) -> MemoryLock {
        contents.withLock {
            $0.locksTaken.append(feed)
            $0.locksHeld += 1
        }
        return MemoryLock { [contents] in contents.withLock { $0.locksHeld -= 1 } }
    }

    public func newestEntryID(feed: String) throws(FeedFailure) -> String? {
        entries(feed).max { $0.seq < $1.seq }?.id
    }

    public func oldestUnread(feed: String) throws(FeedFailure) -> Entry? {
        contents.withLock { $0.unreadLookUps += 1 }
        return entries(feed).filter { !$0.read }.min { $0.seq < $1.seq }
    }

    /// How often one feed's oldest unread entry was looked for.
    public var unreadLookUps: Int { contents.value.unreadLookUps }

    public func oldestUnread(feeds: [String]?) throws(FeedFailure) -> Entry? {
        contents.value.entries.filter { feeds?.contains($0.key) ?? true }.values.flatMap { $0 }.filter { !$0.read }
            .min { ($0.published ?? $0.fetchedAt, $0.seq) < ($1.published ?? $1.fetchedAt, $1.seq) }
    }

    public func markDelivered(feed: String, id: String) throws(FeedFailure) -> FeedRecord {
        try update(feed, write: "delivered \(id)") { contents in
            if let index = contents.entries[feed]?.firstIndex(where: { $0.id == id }) {
                contents.entries[feed]?[index].read = true
            }
        }
    }

    public func commitNothingNew(_ fetches: [(feed: String, commit: FetchCommit)]) throws(FeedFailure) -> [Result<
        FeedRecord, FeedFailure
    >] {
        let fails = contents.withLock { contents in
            contents.nothingNewBatches.append(fetches.map(\.feed))
            return contents.failsCommits
        }
        if fails { throw .storeAccess("disk I/O error") }
        return fetches.map { fetch in
            Result { () throws(FeedFailure) in try commitFetch(feed: fetch.feed, entries: [], fetch.commit).record }
        }
    }

    public func commitFetch(feed: String, entries: [Entry], _ commit: FetchCommit) throws(FeedFailure) -> CommitOutcome
    {
        var inserted: [Entry] = []
        let record = try update(feed, write: "commit \(entries.map(\.id))") { contents in
            var numbers = contents.reserve(entries.filter { $0.seq == 0 }.count, backfill: commit.isBackfill)
                .makeIterator()
            for var entry in entries where !(contents.entries[feed] ?? []).contains(where: { $0.id == entry.id }) {
                if entry.seq == 0, let number = numbers.next() { entry.seq = number }
                contents.entries[feed, default: []].append(entry)
                inserted.append(entry)
            }
            contents.entries[feed]?.sort { $0.seq < $1.seq }
            var record = contents.records[feed]
            record?.lastFetchAt = commit.fetchedAt
            record?.lastSuccessAt = commit.fetchedAt
            record?.lastError = nil
            record?.lastErrorCode = nil
            record?.retryNotBefore = nil
            if let next = commit.nextIndex { record?.nextIndex = next }
            if let validators = commit.validators { record?.validators = validators }
            switch commit.resume {
            case .keep: break
            case .set(let url): record?.resumeURL = url
            case .clear: record?.resumeURL = nil
            }
            switch commit.skipped {
            case .set(let count): record?.lastSkipped = count
            case .add(let count): record?.lastSkipped += count
            }
            if let stream = commit.stream { record?.stream = stream }
            contents.records[feed] = record
            contents.prune(feed, now: commit.fetchedAt, stored: inserted.count)
        }
        return CommitOutcome(entries: inserted, record: record)
    }

    public func number(_ entries: [Entry], backfill: Bool) throws(FeedFailure) -> [Entry] {
        let numbers = contents.withLock { $0.reserve(entries.count, backfill: backfill) }
        return zip(entries, numbers).map { entry, number in
            var entry = entry
            entry.seq = number
            return entry
        }
    }

    public func knownIDs(feed: String, among ids: [String]) throws(FeedFailure) -> Set<String> {
        let remembered = contents.value.remembered
        return Set(entries(feed).map(\.id)).intersection(ids)
            .union(ids.filter { remembered[RememberedID.key(feed: feed, id: $0)] != nil })
    }

    /// `feeds set --keep/--remember`, as the stores take it.
    public func clearLastError(feed: String) throws(FeedFailure) -> FeedRecord {
        try update(feed, write: "cleared error") { contents in
            contents.records[feed]?.lastError = nil
            contents.records[feed]?.lastErrorCode = nil
        }
    }

    public func setSourceTitle(feed: String, _ title: String) throws(FeedFailure) {
        _ = try update(feed, write: "title") { contents in contents.records[feed]?.title = title }
    }

    public func setRetention(feed: String, _ retention: Retention) throws(FeedFailure) {
        _ = try update(feed, write: "retention") { contents in
            contents.records[feed]?.retention = retention
            contents.records[feed]?.keepIsChosen = true
        }
    }

    /// How many ids are remembered.
    public var rememberedCount: Int { contents.value.remembered.count }

    public func recordFailure(feed: String, _ failure: FeedFailure, at time: Date, retryNotBefore: Date?)
        throws(FeedFailure) -> FeedRecord
    {
        try update(feed, write: "failure \(failure.exitCode)") { contents in
            contents.records[feed]?.lastFetchAt = time
            contents.records[feed]?.lastError = failure.description
            contents.records[feed]?.lastErrorCode = failure.exitCode
            if let retryNotBefore { contents.records[feed]?.retryNotBefore = retryNotBefore }
        }
    }

    /// Applies a write and returns the feed's record with its counts, as the store would.
    private func update(_ feed: String, write: String, _ change: (inout Contents) -> Void) throws(FeedFailure)
        -> FeedRecord
    {
        let record = contents.withLock { contents -> FeedRecord? in
            guard contents.records[feed] != nil else { return nil }
            change(&contents)
            contents.writes.append(write)
            let entries = contents.entries[feed] ?? []
            contents.records[feed]?.total = entries.count
            contents.records[feed]?.unread = entries.filter { !$0.read }.count
            contents.records[feed]?.lastReadID = entries.filter(\.read).max { $0.seq < $1.seq }?.id
            return contents.records[feed]
        }
        guard let record else { throw .notFound("no feed named \(feed)") }
        return record
    }
}

/// A `MemoryStore` lock: let go when the last reference to it goes.
private final class MemoryLock: HeldFeedLock {
    private let release: @Sendable () -> Void
    init(release: @escaping @Sendable () -> Void) { self.release = release }
    deinit { release() }
}

/// Search as a scan: every entry matched with `SearchDocument`, the reference both engines'
/// indexes are held to.
extension MemoryStore: EntrySearching {
    public func search(_ request: SearchRequest, _ body: (SearchHit) throws -> Bool) throws(FeedFailure) {
        let since = request.sinceStamp
        var hits = contents.value.entries.values.joined().filter { entry in
            (request.feeds.isEmpty || request.feeds.contains(entry.feed)) && (!request.unreadOnly || !entry.read)
                && since.map { (entry.published ?? entry.fetchedAt) >= $0 } ?? true
                && SearchDocument(entry).matches(request.query)
        }.map { SearchHit(entry: $0, rank: request.ranked ? SearchDocument($0).score(request.query) : nil) }
        hits.sort { left, right in
            if let l = left.rank, let r = right.rank, l != r { return l > r }
            let (lt, rt) = (
                left.entry.published ?? left.entry.fetchedAt, right.entry.published ?? right.entry.fetchedAt
            )
            return lt != rt ? lt > rt : left.entry.seq > right.entry.seq
        }
        do {
            for hit in hits.prefix(request.limit ?? hits.count) where try !body(hit) { break }
        } catch let failure as FeedFailure {
            throw failure
        } catch {
            throw FeedFailure.storeAccess("\(error)")
        }
    }
}
