import FoundationEssentials

/// A feed's registration plus everything the store keeps about its polling: the persistent part
/// of the reactor's per-feed state.
///
/// A value, stored out of line and shared by its copies until one of them changes (copy on
/// write). A record rides every step of a feed's sync by value (captured by the walk's
/// closures, carried by mutations, kept in the reactor's state), and copying its 500 bytes and
/// some 30 references at each step was a large part of what a quiet feed cost the reactor's
/// thread; a copy is now one reference.
public struct FeedRecord: Sendable, Equatable {
    private var storage: Storage

    public var registration: FeedRegistration {
        _read { yield fields.registration }
        _modify { yield &fields.registration }
    }
    /// For `indexed` feeds: the next index to request (highest id seen + 1).
    public var nextIndex: Int {
        _read { yield fields.nextIndex }
        _modify { yield &fields.nextIndex }
    }
    public var validators: Validators {
        _read { yield fields.validators }
        _modify { yield &fields.validators }
    }
    /// The server asked not to be asked before this (`Retry-After`).
    public var retryNotBefore: Date? {
        _read { yield fields.retryNotBefore }
        _modify { yield &fields.retryNotBefore }
    }
    /// For paged feeds: the page where a walk cut short by `--max-pages` goes on (older entries).
    public var resumeURL: String? {
        _read { yield fields.resumeURL }
        _modify { yield &fields.resumeURL }
    }
    public var lastFetchAt: Date? {
        _read { yield fields.lastFetchAt }
        _modify { yield &fields.lastFetchAt }
    }
    /// When a fetch last succeeded (for `--every`).
    public var lastSuccessAt: Date? {
        _read { yield fields.lastSuccessAt }
        _modify { yield &fields.lastSuccessAt }
    }
    /// `--every`: a plain `sync` skips the feed while its last success is younger than this.
    public var every: Duration? {
        _read { yield fields.every }
        _modify { yield &fields.every }
    }
    public var lastError: String? {
        _read { yield fields.lastError }
        _modify { yield &fields.lastError }
    }
    public var lastErrorCode: Int32? {
        _read { yield fields.lastErrorCode }
        _modify { yield &fields.lastErrorCode }
    }
    public var total: Int {
        _read { yield fields.total }
        _modify { yield &fields.total }
    }
    public var unread: Int {
        _read { yield fields.unread }
        _modify { yield &fields.unread }
    }
    /// The id of the newest entry marked read (the read cursor), nil when none is read.
    public var lastReadID: String? {
        _read { yield fields.lastReadID }
        _modify { yield &fields.lastReadID }
    }
    /// How many items the last sync skipped (no usable id).
    public var lastSkipped: Int {
        _read { yield fields.lastSkipped }
        _modify { yield &fields.lastSkipped }
    }
    /// How many items the last sync's `--filter` kept out, and let through.
    public var lastFiltered: Int {
        _read { yield fields.lastFiltered }
        _modify { yield &fields.lastFiltered }
    }
    public var lastKept: Int {
        _read { yield fields.lastKept }
        _modify { yield &fields.lastKept }
    }
    /// A stream feed's position: its last event id and the time of its last event.
    public var stream: StreamPosition? {
        _read { yield fields.stream }
        _modify { yield &fields.stream }
    }
    /// The kind the store names when this feedcli does not know it (a newer feedcli added the
    /// feed): the feed is then shown and can be removed, but is never fetched or exported, and
    /// `registration.kind` is only a stand-in (`.json`). Nil for every feed this feedcli knows.
    public var unknownKind: String? {
        _read { yield fields.unknownKind }
        _modify { yield &fields.unknownKind }
    }

    /// What the feed keeps and how long it remembers the ids of what it let go (`--keep`,
    /// `--remember`).
    public var retention: Retention {
        _read { yield fields.retention }
        _modify { yield &fields.retention }
    }
    /// Whether `--keep` was chosen (by `feeds add|set`, or by the one notice a stream feed from
    /// before retention gets) rather than left as it was before feedcli pruned anything.
    public var keepIsChosen: Bool {
        _read { yield fields.keepIsChosen }
        _modify { yield &fields.keepIsChosen }
    }
    /// How many entries retention has pruned, and how many of those were unread.
    public var pruned: Int {
        _read { yield fields.pruned }
        _modify { yield &fields.pruned }
    }
    public var prunedUnread: Int {
        _read { yield fields.prunedUnread }
        _modify { yield &fields.prunedUnread }
    }
    /// The source feed's own title (a JSON Feed's `title`, an OPML outline's), as `feeds add` or
    /// `feeds import` found it; exports name the feed by it. Nil when none was found.
    public var title: String? {
        _read { yield fields.title }
        _modify { yield &fields.title }
    }

    /// The kind's name as the store holds it: `unknownKind` when set, else `registration.kind`'s.
    public var kindName: String { unknownKind ?? registration.kind.rawValue }

    /// What fetching or exporting a feed of an unknown kind fails with (78, naming the kind and
    /// how to recover); nil for a kind this feedcli knows.
    public var unknownKindFailure: FeedFailure? {
        unknownKind.map { kind in
            .configuration(
                "feed \(name) has kind \(kind), which this feedcli does not know (a newer feedcli's?): "
                    + "upgrade feedcli, or remove the feed with `feedcli feeds remove \(name)`")
        }
    }

    /// Whether the last sync's filter kept out every item it saw (`status` marks such a feed:
    /// a filter that drops everything would otherwise be silent).
    public var filterKeptNothing: Bool { lastFiltered > 0 && lastKept == 0 }

    public var name: String { registration.name }

    /// When a plain `sync` fetches the feed again, for a feed with `every` (never, for `never`).
    public var nextDue: Date? {
        guard let every, every != EveryDuration.never else { return nil }
        return lastSuccessAt.map { $0.addingTimeInterval(Double(every.components.seconds)) }
    }

    /// Until when a plain `sync` leaves the feed alone (`every`): nil when it is due now.
    public func notDue(at now: Date) -> Date? {
        guard let every else { return nil }
        if every == EveryDuration.never { return .distantFuture }
        return nextDue.flatMap { $0 > now ? $0 : nil }
    }

    public init(
        registration: FeedRegistration, nextIndex: Int = 1, validators: Validators = Validators(),
        retryNotBefore: Date? = nil, resumeURL: String? = nil, lastFetchAt: Date? = nil, lastSuccessAt: Date? = nil,
        every: Duration? = nil, lastError: String? = nil,
        lastErrorCode: Int32? = nil, total: Int = 0, unread: Int = 0, lastReadID: String? = nil, lastSkipped: Int = 0,
        lastFiltered: Int = 0, lastKept: Int = 0, stream: StreamPosition? = nil, unknownKind: String? = nil,
        retention: Retention? = nil, keepIsChosen: Bool = false, pruned: Int = 0, prunedUnread: Int = 0,
        title: String? = nil
    ) {
        storage = Storage(
            Fields(
                registration: registration, nextIndex: nextIndex, validators: validators,
                retryNotBefore: retryNotBefore,
                resumeURL: resumeURL, lastFetchAt: lastFetchAt, lastSuccessAt: lastSuccessAt, every: every,
                lastError: lastError, lastErrorCode: lastErrorCode, total: total, unread: unread,
                lastReadID: lastReadID,
                lastSkipped: lastSkipped, lastFiltered: lastFiltered, lastKept: lastKept, stream: stream,
                unknownKind: unknownKind,
                // A feed that never chose: what a store row without a choice reads as.
                retention: retention
                    ?? Retention(keep: .all, remember: Retention.defaultRemember(for: registration.kind)),
                keepIsChosen: keepIsChosen, pruned: pruned, prunedUnread: prunedUnread, title: title))
    }

    public static func == (lhs: FeedRecord, rhs: FeedRecord) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// The fields: read from the shared storage, changed in storage of this record's own (made
    /// first when another copy shares it).
    private var fields: Fields {
        _read { yield storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }

    /// The stored properties, as the struct held them before they moved out of line.
    private struct Fields: Equatable {
        var registration: FeedRegistration
        var nextIndex: Int
        var validators: Validators
        var retryNotBefore: Date?
        var resumeURL: String?
        var lastFetchAt: Date?
        var lastSuccessAt: Date?
        var every: Duration?
        var lastError: String?
        var lastErrorCode: Int32?
        var total: Int
        var unread: Int
        var lastReadID: String?
        var lastSkipped: Int
        var lastFiltered: Int
        var lastKept: Int
        var stream: StreamPosition?
        var unknownKind: String?
        var retention: Retention
        var keepIsChosen: Bool
        var pruned: Int
        var prunedUnread: Int
        var title: String?
    }

    // @unchecked Sendable: `fields` changes only through `FeedRecord.fields`' unique reference (a
    // storage shared by two records, and so visible to two threads, is never written: the
    // writer copies it first), the discipline of the standard library's own copy-on-write types.
    private final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }
}

extension FeedRecord: CustomReflectable {
    /// The fields, as a struct's would be shown (test diffs, `dump`), not the storage's box.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "registration": registration as Any,
                "nextIndex": nextIndex as Any,
                "validators": validators as Any,
                "retryNotBefore": retryNotBefore as Any,
                "resumeURL": resumeURL as Any,
                "lastFetchAt": lastFetchAt as Any,
                "lastSuccessAt": lastSuccessAt as Any,
                "every": every as Any,
                "lastError": lastError as Any,
                "lastErrorCode": lastErrorCode as Any,
                "total": total as Any,
                "unread": unread as Any,
                "lastReadID": lastReadID as Any,
                "lastSkipped": lastSkipped as Any,
                "lastFiltered": lastFiltered as Any,
                "lastKept": lastKept as Any,
                "stream": stream as Any,
                "unknownKind": unknownKind as Any,
                "retention": retention as Any,
                "keepIsChosen": keepIsChosen as Any,
                "pruned": pruned as Any,
                "prunedUnread": prunedUnread as Any,
            ], displayStyle: .struct)
    }
}
