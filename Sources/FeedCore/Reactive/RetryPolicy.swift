import FoundationEssentials

/// When and how long to wait before a retry: exponential backoff with full jitter.
///
/// Retry `n` (1-based) waits a uniformly random time in `0 ... min(cap, base × 2^(n-1))`
/// ("full jitter"), so that many clients failing together do not retry together. A failure can
/// ask for a longer wait (a server's `Retry-After`) through `minimumDelay`; the wait is then at
/// least that, still capped by `cap`.
public struct RetryPolicy: Sendable {
    public var maxRetries: Int
    public var base: Duration
    public var cap: Duration
    public var shouldRetry: @Sendable (any Error) -> Bool
    public var minimumDelay: @Sendable (any Error) -> Duration?

    public init(
        maxRetries: Int,
        base: Duration = .milliseconds(500),
        cap: Duration = .seconds(30),
        shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true },
        minimumDelay: @escaping @Sendable (any Error) -> Duration? = { _ in nil }
    ) {
        self.maxRetries = max(0, maxRetries)
        self.base = base
        self.cap = cap
        self.shouldRetry = shouldRetry
        self.minimumDelay = minimumDelay
    }

    /// The wait before retry number `retry` (1-based), given `random` in `0...1`.
    public func delay(beforeRetry retry: Int, error: any Error, random: Double) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        let ceiling = min(cap, base * (1 << exponent))
        let jittered = ceiling * min(max(random, 0), 1)
        guard let floor = minimumDelay(error) else { return jittered }
        return min(cap, max(jittered, floor))
    }
}
