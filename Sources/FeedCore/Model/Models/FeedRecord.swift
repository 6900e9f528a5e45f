import FoundationEssentials

/// A feed's registration plus everything the store keeps about its polling: the persistent part
/// of the reactor's per-feed state.

public struct FeedRecord: Sendable, Equatable {
    public var registration: FeedRegistration
    /// For `indexed` feeds: the next index to request (highest id seen + 1).
    public var nextIndex: Int
    public var validators: Validators
    /// The server asked not to be asked before this (`Retry-After`).
    public var retryNotBefore: Date?
    /// For paged feeds: the page where a walk cut short by `--max-pages` goes on (older entries).
    public var resumeURL: String?
    public var lastFetchAt: Date?
    /// When a fetch last succeeded (for `--every`).
    public var lastSuccessAt: Date?
    /// `--every`: a plain `sync` skips the feed while its last success is younger than this.
    public var every: Duration?
    public var lastError: String?
    public var lastErrorCode: Int32?
    public var total: Int
    public var unread: Int
    /// The id of the newest entry marked read (the read cursor), nil when none is read.
    public var lastReadID: String?
    /// How many items the last sync skipped (no usable id).
    public var lastSkipped: Int
    /// How many items the last sync's `--filter` kept out, and let through.
    public var lastFiltered: Int
    public var lastKept: Int
    /// A stream feed's position: its last event id and the time of its last event.
    public var stream: StreamPosition?

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
        lastFiltered: Int = 0, lastKept: Int = 0, stream: StreamPosition? = nil
    ) {
        self.registration = registration
        self.nextIndex = nextIndex
        self.validators = validators
        self.retryNotBefore = retryNotBefore
        self.resumeURL = resumeURL
        self.lastFetchAt = lastFetchAt
        self.lastSuccessAt = lastSuccessAt
        self.every = every
        self.lastError = lastError
        self.lastErrorCode = lastErrorCode
        self.total = total
        self.unread = unread
        self.lastReadID = lastReadID
        self.lastSkipped = lastSkipped
        self.lastFiltered = lastFiltered
        self.lastKept = lastKept
        self.stream = stream
    }
}
