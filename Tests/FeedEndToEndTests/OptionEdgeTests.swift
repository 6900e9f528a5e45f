import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Options at their edges, as the built `feedcli` reads them (round 6 of hostile input): each
/// refused value is refused in the option's own words, and a pair that would deliver entries
/// again and again is refused.
@Suite("Options at their edges", .timeLimit(.minutes(2)))
struct OptionEdgeTests {
    let session = StoreSession()

    @Test func aNegativeValueGetsTheOptionsOwnMessage() async throws {
        try await session.add("p", "http://127.0.0.1:9/feed", kind: "linked")
        for (arguments, words) in [
            (["feeds", "set", "p", "--keep", "-1"], "--keep takes all, a count"),
            (["feeds", "set", "p", "--remember", "-1d"], "--remember takes a duration"),
            (["feeds", "add", "n", "ws://127.0.0.1:9/", "--kind", "nostr", "--since", "-1d"], "--since"),
        ] {
            let run = try await session.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(words) && !run.stderr.contains("issing value"), "\(arguments): \(run.stderr)")
        }
    }

    @Test func execTimeoutIsAtMostADayWhateverItsSpelling() async throws {
        for value in ["86401", "2d", "25h", "1441m", "0s"] {
            let run = try await session.run(["sync", "--exec", "true", "--exec-timeout", value])
            #expect(run.status == 64 && run.stderr.contains("at most a day"), "\(value): \(run.stderr)")
        }
        for value in ["86400", "1d", "24h", "90s"] {
            let run = try await session.run(["sync", "nosuch", "--exec", "true", "--exec-timeout", value])
            #expect(run.status == 66, "\(value) is taken (then the feed is unknown): \(run.stderr)")
        }
    }

    @Test func aCountKeptWithIdsRememberedForNoTimeIsRefused() async throws {
        try await session.add("p", "http://127.0.0.1:9/feed", kind: "linked")
        let both = try await session.run(["feeds", "set", "p", "--keep", "5", "--remember", "0s"])
        #expect(both.status == 64 && both.stderr.contains("again at every sync"), "\(both.stderr)")
        #expect(try await session.run(["feeds", "set", "p", "--keep", "5"]).status == 0)
        let later = try await session.run(["feeds", "set", "p", "--remember", "0s"])
        #expect(later.status == 64 && later.stderr.contains("--keep 5 with --remember 0s"), "\(later.stderr)")
        #expect(try await session.run(["feeds", "set", "p", "--keep", "30d", "--remember", "0s"]).status == 0)
    }

    @Test func aWebSocketURLWithAPasswordIsRefused() async throws {
        let run = try await session.run([
            "feeds", "add", "j", "wss://me:secret@jetstream.example/subscribe", "--kind", "jetstream",
        ])
        #expect(run.status == 64 || run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains("user:password is not sent") && !run.stderr.contains("secret"), "\(run.stderr)")
    }
}
