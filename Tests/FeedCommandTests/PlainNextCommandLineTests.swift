import FeedReactorTesting
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCLI
@testable import FeedCore
@testable import FeedReactor
@testable import FeedStore

@Suite("The plainest next, recognised without ArgumentParser")
struct PlainNextCommandLineTests {
    @Test func recognisesAFeedAndAStoreInAnyOrder() {
        #expect(PlainNextCommandLine(["next"]) == PlainNextCommandLine(feed: nil, statePath: nil))
        #expect(PlainNextCommandLine(["next", "fireball"]) == PlainNextCommandLine(feed: "fireball"))
        #expect(
            PlainNextCommandLine(["next", "help"]) == PlainNextCommandLine(feed: "help"),
            "a feed, as ArgumentParser reads it")
        #expect(
            PlainNextCommandLine(["next", "fireball", "--state", "/s.db"])
                == PlainNextCommandLine(feed: "fireball", statePath: "/s.db"))
        #expect(
            PlainNextCommandLine(["next", "--state", "/s.db", "fireball"])
                == PlainNextCommandLine(feed: "fireball", statePath: "/s.db"))
        #expect(PlainNextCommandLine(["next", "--state=/s.db"]) == PlainNextCommandLine(feed: nil, statePath: "/s.db"))
    }

    @Test(arguments: [
        [], ["sync"], ["list", "next"], ["--state", "/s.db", "next"],
        ["next", "a", "b"], ["next", "--state", "/a", "--state", "/b"], ["next", "--state"], ["next", "--state="],
        ["next", "--state", "-x"], ["next", ""], ["next", "-"], ["next", "--"], ["next", "--", "a"],
        ["next", "--help"], ["next", "-h"], ["next", "--version"], ["next", "--all"], ["next", "a", "--json"],
        ["next", "a", "-q"], ["next", "a", "--wait", "0"], ["next", "a", "--retries=0"], ["next", "--stat", "/s.db"],
        ["next", "---completion"],
    ])
    func leavesEveryOtherLineToArgumentParser(arguments: [String]) {
        #expect(PlainNextCommandLine(arguments) == nil)
    }
}

/// The built binary: a line the fast path takes does what ArgumentParser makes of the same line
/// with a default spelled out (which the fast path leaves to it).
@Suite("The plainest next, as a process", .serialized, .timeLimit(.minutes(3)))
struct PlainNextProcessTests {
    @Test func doesWhatTheSameLineParsedByArgumentParserDoes() async throws {
        let posts = try PostsServer(available: 3)
        let fast = temporaryStorePath()
        let parsed = temporaryStorePath()
        for state in [fast, parsed] {
            let added = try await Feedcli.run([
                "feeds", "add", "local", posts.url, "--kind", "indexed", "--state", state,
            ])
            #expect(added.status == 0, "\(added.stderr)")
        }
        // (the line the fast path takes, the same line with a default spelled out, the environment of each)
        let lines: [(fast: [String], parsed: [String], environments: ([String: String], [String: String]))] = [
            (["next", "local", "--state", fast], ["next", "local", "--state", parsed, "--retries", "2"], ([:], [:])),
            (["next", "--state=\(fast)", "local"], ["next", "--state=\(parsed)", "local", "--jobs", "8"], ([:], [:])),
            (
                ["next", "local"], ["next", "local", "--timeout", "30"],
                (["FEEDCLI_STATE": fast], ["FEEDCLI_STATE": parsed])
            ),
            (
                ["next", "local", "--state", fast], ["next", "local", "--state", parsed, "--max-size", "16777216"],
                ([:], [:])
            ),
            (["next", "nope", "--state", fast], ["next", "nope", "--state", parsed, "--wait", "30"], ([:], [:])),
        ]
        var statuses: [Int32] = []
        for line in lines {
            let one = try await Feedcli.run(line.fast, environment: line.environments.0)
            let other = try await Feedcli.run(line.parsed, environment: line.environments.1)
            #expect(one.status == other.status, "\(line.fast)")
            #expect(one.stdout == other.stdout, "\(line.fast)")
            #expect(one.stderr == other.stderr, "\(line.fast)")
            statuses.append(one.status)
        }
        #expect(statuses == [0, 0, 0, 1, 66], "three posts, the end of the feed, an unknown feed")
    }
}
