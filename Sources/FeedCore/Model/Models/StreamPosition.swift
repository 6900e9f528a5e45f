import FoundationEssentials

/// Where a stream feed stands: the last event id its server gave (sent back as `Last-Event-ID`,
/// so a server that replays fills the gap) and when its last event arrived.
public struct StreamPosition: Sendable, Equatable {
    /// The SSE last event ID string; nil when the server gives none (an empty `id:` resets it).
    public var lastEventID: String?
    public var lastEventAt: Date

    public init(lastEventID: String?, lastEventAt: Date) {
        self.lastEventID = lastEventID
        self.lastEventAt = lastEventAt
    }
}
