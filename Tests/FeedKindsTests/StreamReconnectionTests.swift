import Testing

@testable import FeedKinds

/// A server's `retry: 0` cannot make a busy loop: every wait is at least 100 ms (zero doubled
/// stayed zero, 6,125 connections in 6 seconds).
@Suite("Stream reconnection floor")
struct StreamReconnectionTests {
    @Test func noWaitIsShorterThanTheFloorWhateverTheServerSays() {
        var reconnection = StreamReconnection()
        reconnection.serverDelay = .zero
        for _ in 0..<5 {
            let delay = reconnection.delay(afterConnectedFor: .zero, retryAfter: nil, random: 1)
            #expect(delay >= StreamReconnection.shortestDelay, "\(delay)")
        }
        #expect(StreamReconnection.shortestDelay == .milliseconds(100))
    }
}
