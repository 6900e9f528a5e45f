import FeedCore
import FeedKinds
import FeedModel
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTerminal
import FeedTesting
import Foundation
import Testing

/// Commands called in-process with an injected context: output sinks, clock and environment.
@Suite("Commands with an injected context", .serialized, .timeLimit(.minutes(3)))
struct CommandTests {
    let posts: PostsServer
    let stdout = BufferSink()
    let stderr = BufferSink()
    let context: CommandContext

    init() async throws {
        posts = try PostsServer(available: 2)
        var fetch = FetchOptions()
        fetch.retries = 0
        context = CommandContext(
            statePath: temporaryStorePath(), fetch: fetch, stdout: stdout, stderr: stderr,
            now: { Date(timeIntervalSince1970: 1_795_000_000) })
        #expect(await runCommand(FeedsAdd.self, ["local", posts.url, "--kind", "indexed"], context) == 0)
    }

    @Test func nextPrintsTheEntryWithTheInjectedClock() async {
        var json = context
        json.format = .json
        #expect(await runNext(feed: "local", json) == 0)
        #expect(stdout.text.hasPrefix(#"{"feed":"local","id":"1","title":"sunt aut facere"#))
        #expect(stdout.text.contains(#""fetched_at":"2026-11-18T11:06:40Z","read":true,"source":{"#))
        #expect(stderr.text.isEmpty)
    }

    @Test func theProgressLineIsDrawnWhileFetchingAndClearedAfter() async {
        var shown = context
        shown.showsProgress = true
        #expect(await runNext(feed: "local", shown) == 0)
        #expect(
            stderr.text.contains("feedcli: local, index 1: \(posts.url)/1"), "indexed feeds count indices, not pages")
        #expect(stderr.text.hasSuffix("\r\u{1B}[K"), "the line is erased before the command ends")
        var quiet = context
        quiet.showsProgress = false
        let before = stderr.text
        #expect(await runNext(feed: "local", quiet) == 0)
        #expect(stderr.text == before)
    }

    @Test func syncReportsEachFailingFeedOnItsOwnLine() async {
        posts.failNext(500)
        #expect(await runCommand(Sync.self, ["local"], context) == 75)
        #expect(stdout.text.isEmpty)
        // Four indices are in flight at once, so the 500 may answer any of them.
        #expect(stderr.text.hasPrefix("feedcli: local: temporary failure, try later: HTTP 500 from \(posts.url)/"))
        #expect(stderr.text.filter { $0 == "\n" }.count == 1 && stderr.text.hasSuffix("\n"))
    }

    @Test func anInterruptionBeforeTheRequestEndsWith130() async {
        let interruption = Interruption()
        var interrupted = context
        interrupted.interruption = interruption
        interruption.trigger()
        #expect(await runNext(feed: "local", interrupted) == 130)
        #expect(stdout.text.isEmpty)
    }

    @Test func theDefaultStatePath() async {
        #expect(
            CommandContext.defaultStatePath(environment: ["FEEDCLI_STATE": "/s.sqlite", "HOME": "/h"]) == "/s.sqlite")
        #expect(
            CommandContext.defaultStatePath(environment: ["XDG_STATE_HOME": "/x", "HOME": "/h"])
                == "/x/feedcli/feedcli.sqlite")
        #expect(
            CommandContext.defaultStatePath(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"])
                == "/h/.local/state/feedcli/feedcli.sqlite", "a relative XDG_STATE_HOME is ignored, as the spec says")
    }

    @Test func theMostSeriousFailureWins() async {
        #expect(
            FeedFailure.mostSerious([.temporary("a"), .refused(status: 410, url: "u")])
                == .refused(status: 410, url: "u"))
        #expect(
            FeedFailure.mostSerious([.badData("a"), .unauthorized(status: 401, url: "u"), .temporary("b")])
                == .unauthorized(status: 401, url: "u"))
        #expect(FeedFailure.mostSerious([.temporary("a")]) == .temporary("a"))
        #expect(FeedFailure.mostSerious([]) == nil)
    }
}
