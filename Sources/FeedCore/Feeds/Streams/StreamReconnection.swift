import FoundationEssentials

/// When a stream connects again after it dropped, as LaunchDarkly's SSE clients and the
/// contract have it: the server's `retry:` (else 1 s), doubling with each failure in a row up to
/// 30 s, less a random part of up to half (jitter: many clients dropped at once do not return at
/// once), back to the start after 60 s connected; a `Retry-After` is waited for at least.
package struct StreamReconnection: Sendable, Equatable {
    package static let firstDelay: Duration = .seconds(1)
    package static let longestDelay: Duration = .seconds(30)
    /// Connected this long, a stream counts as healthy again: the next drop waits the first delay.
    package static let healthyAfter: Duration = .seconds(60)
    /// The shortest wait whatever the server says: `retry: 0` and a close made thousands of
    /// connections a second (zero doubled stays zero), a busy loop against its server.
    package static let shortestDelay: Duration = .milliseconds(100)

    /// The server's `retry:`, when it sent one.
    package var serverDelay: Duration?
    /// Failures in a row, without a healthy connection between them.
    package private(set) var failures = 0

    package init() {}

    /// The wait before the next attempt, after a connection that lasted `connected` dropped;
    /// `random` is in 0...1, `retryAfter` the server's.
    package mutating func delay(afterConnectedFor connected: Duration, retryAfter: Duration?, random: Double)
        -> Duration
    {
        if connected >= Self.healthyAfter { failures = 0 }
        let base = min(max(serverDelay ?? Self.firstDelay, Self.shortestDelay), Self.longestDelay)
        var delay = base
        for _ in 0..<min(failures, 16) where delay < Self.longestDelay { delay = min(delay * 2, Self.longestDelay) }
        failures += 1
        let jittered = delay - delay * (min(max(random, 0), 1) / 2)
        return max(jittered, Self.shortestDelay, retryAfter ?? .zero)
    }
}
