import FeedBase
import FeedModel
import FeedReactor
import FeedTesting
import Foundation
import Testing

@testable import FeedTerminal

/// `FeedHealthLines`: what a long `follow` says of its feeds while it runs, from its states.
@Suite("Health lines: a feed's failure said once, reminded hourly, its recovery said")
struct FeedHealthLinesTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        let time = Locked(Date(timeIntervalSince1970: 1_796_000_000))
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    let clock = Clock()
    let sink = BufferSink()
    var state = FeedReactorState()

    func lines(_ health: FeedHealthLines, _ state: FeedReactorState) -> [String] {
        let before = sink.text.split(separator: "\n").count
        health.update(state)
        return sink.text.split(separator: "\n").dropFirst(before).map(String.init)
    }

    mutating func fail(_ feed: String, _ failure: FeedFailure, tries: Int) {
        state.feeds[feed, default: FeedStatus(name: feed)].failure = failure
        state.feeds[feed]?.failuresInARow = tries
    }

    @Test mutating func aFailureIsSaidOnceThenHourlyThenItsRecovery() {
        let clock = self.clock
        let health = FeedHealthLines(stderr: JournalLines(sink: sink), now: { clock.time.value })
        let webhook = FeedFailure.commandFailed("--exec command exited 22 for news @185 (id news-7)")
        fail("news", webhook, tries: 1)
        #expect(
            lines(health, state) == [
                "<4>feedcli: news: failing (75, temporary: tried again): --exec command exited 22 for news @185 (id news-7)"
            ])
        clock.advance(60)
        fail("news", webhook, tries: 2)
        #expect(lines(health, state).isEmpty, "no line a retry")
        #expect(lines(health, state).isEmpty, "nor for a state that changed nothing")
        clock.advance(3600)
        fail("news", webhook, tries: 9)
        #expect(
            lines(health, state) == [
                "<4>feedcli: news: still failing since 2026-11-30T00:53:20Z, 9 tries: --exec command exited 22 for news @185 (id news-7)"
            ])
        clock.advance(60)
        fail("news", webhook, tries: 10)
        #expect(lines(health, state).isEmpty, "the next reminder an hour after this one")
        clock.advance(120)
        state.feeds["news"]?.failure = nil
        state.feeds["news"]?.failuresInARow = 0
        #expect(lines(health, state) == ["<5>feedcli: news: recovered after 10 failures, 1h4m"])
        #expect(lines(health, state).isEmpty, "said once")
    }

    @Test mutating func aPermanentFailureIsAnErrorAndWarningsAreSaidAsTheyCome() {
        let health = FeedHealthLines(stderr: JournalLines(sink: sink), now: { Date(timeIntervalSince1970: 0) })
        fail("mast", .configuration("the variable MASTODON_TOKEN (--token-env) is not set"), tries: 1)
        state.feeds["g", default: FeedStatus(name: "g")].warnings = ["the next page u answered HTTP 404"]
        state.feeds["g"]?.warningCount = 1
        #expect(
            lines(health, state) == [
                "<4>feedcli: g: warning: the next page u answered HTTP 404",
                "<3>feedcli: mast: failing (78, the feed's configuration cannot work): configuration error: the variable MASTODON_TOKEN (--token-env) is not set",
            ])
        state.feeds["g"]?.warnings = ["the next page u answered HTTP 404", "again"]
        state.feeds["g"]?.warningCount = 2
        #expect(lines(health, state) == ["<4>feedcli: g: warning: again"], "only the new one")
    }

    @Test mutating func anInterruptionIsNoFailureAndANewActionStartsAfresh() {
        let health = FeedHealthLines(stderr: sink, now: { Date(timeIntervalSince1970: 0) })
        fail("ev", .interrupted, tries: 1)
        #expect(lines(health, state).isEmpty)
        fail("ev", .temporary("HTTP 503"), tries: 2)
        #expect(
            lines(health, state) == [
                "feedcli: ev: failing (75, temporary: tried again): temporary failure, try later: HTTP 503"
            ])
        var next = FeedReactorState()
        next.revision = state.revision + 1
        #expect(lines(health, next).isEmpty, "a new action: the last one's failures are not recovered, only forgotten")
    }
}
