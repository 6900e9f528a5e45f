import FeedModel
import Testing

/// A wait is said to the minute past an hour: `status` said "in 1h" for 1h44m.
@Suite("Waits as people say them")
struct WaitTextTests {
    @Test(arguments: [
        (Int64(0), "0s"), (45, "45s"), (60, "1m"), (330, "5m30s"), (3600, "1h"), (6240, "1h44m"),
        (6259, "1h44m"), (86_400, "1d"), (183_600, "2d3h"), (-5, "0s"),
    ])
    func aWaitIsItsLargestUnitAndTheNext(seconds: Int64, text: String) {
        #expect(WaitText.of(seconds: seconds) == text)
    }
}
