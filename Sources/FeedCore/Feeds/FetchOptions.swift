import FeedJQ
import FoundationEssentials

/// The per-run knobs of fetching, from the command line.
public struct FetchOptions: Sendable, Equatable {
    public var timeout: Duration = .seconds(30)
    public var retries: Int = 2
    public var maxBodySize: Int = 16 * 1024 * 1024
    /// nil means the kind's default (`FeedKind.defaultMaxPages`).
    public var maxPages: Int?
    /// Ignore a stored `Retry-After`.
    public var force = false
    /// `sync --skip-busy`: a feed another run holds is left to it (said with `-v`) instead of
    /// waited for, so pollers started together split the feeds between them.
    public var skipBusy = false
    /// `--wait`: how long a feed that a `follow` owns is waited for before it is busy (75).
    public var busyWait: Duration = .seconds(30)
    /// How many feeds `sync` works on at once (requests to one host stay capped by the client).
    public var jobs = 8
    /// First retry's backoff ceiling; doubles per retry (full jitter), capped at `retryCap`.
    public var retryBase: Duration = .milliseconds(500)
    public var retryCap: Duration = .seconds(30)
    /// The most memory a jq worker may use, in bytes (`--jq-memory`).
    public var jqMemory = JQ.Limits.defaultMemory

    /// What a feed's jq expressions may use: `--jq-memory`, and `--timeout` per call (a polled
    /// feed's run takes `forOneRun()` of it: `--timeout` for all its pages together).
    package var jq: JQ.Limits { JQ.Limits(memory: jqMemory, timeout: timeout, output: maxBodySize) }

    public init() {}
}
