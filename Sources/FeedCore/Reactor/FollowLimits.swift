/// What ends a `follow`, besides Ctrl-C and SIGTERM (the environment's `stop`).
public struct FollowLimits: Sendable, Equatable {
    /// `--max-time`: the whole session's length.
    public var maxTime: Duration?
    /// `--max-entries`: entries delivered, over all feeds.
    public var maxEntries: Int?
    /// `--until-idle`: no event of any feed for this long.
    public var untilIdle: Duration?
    /// `--idle-timeout`: a connection silent (not even a heartbeat) this long is dropped and made again.
    public var idleTimeout: Duration
    /// `--wait`: how long a feed another run holds is waited for (within the limits above).
    public var busyWait: Duration

    public init(
        maxTime: Duration? = nil, maxEntries: Int? = nil, untilIdle: Duration? = nil,
        idleTimeout: Duration = .seconds(90),
        busyWait: Duration = .seconds(30)
    ) {
        self.maxTime = maxTime
        self.maxEntries = maxEntries
        self.untilIdle = untilIdle
        self.idleTimeout = idleTimeout
        self.busyWait = busyWait
    }
}
