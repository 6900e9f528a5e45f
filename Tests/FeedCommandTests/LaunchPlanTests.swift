import ArgumentParser
import Testing

@testable import FeedCLI
@testable import FeedCore

/// The executable's one look at its command line: each line goes to exactly one place, and only
/// the parser's lines reach the parser.
@Suite("The launch plan: argv read once")
struct LaunchPlanTests {
    @Test func eachLineGoesToOnePlace() {
        #expect(LaunchPlan([]) == .overview)
        #expect(LaunchPlan(["next"]) == .plainNext(PlainNextCommandLine()))
        #expect(
            LaunchPlan(["next", "b", "--state", "/s.db"])
                == .plainNext(PlainNextCommandLine(feed: "b", statePath: "/s.db")))
        #expect(LaunchPlan(["next", "b", "--json"]) == .parse(["next", "b", "--json"]))
        #expect(LaunchPlan(["sync", "--quiet"]) == .parse(["sync", "--quiet"]))
        #expect(LaunchPlan(["--generate-completion-script", "zsh"]) == .completionScript(.zsh))
        #expect(LaunchPlan(["--generate-completion-script=fish"]) == .completionScript(.fish))
        #expect(
            LaunchPlan(["--generate-completion-script", "tcsh"]) == .parse(["--generate-completion-script", "tcsh"]),
            "a shell feedcli has no script for is the parser's to refuse")
    }

    /// The store a line names before parsing: the plainest `next`'s `--state`, whose database
    /// connection the executable begins first (`Invocation.beginConnection(toStoreAt:)`).
    @Test func onlyThePlainestNextNamesItsStoreBeforeParsing() {
        #expect(LaunchPlan(["next", "b", "--state", "postgresql://h/db"]).namedStore == "postgresql://h/db")
        #expect(LaunchPlan(["next", "--state=/s.db"]).namedStore == "/s.db")
        #expect(LaunchPlan(["next"]).namedStore == nil)
        #expect(LaunchPlan(["list", "--state", "postgresql://h/db"]).namedStore == nil, "the parser's to read")
        #expect(LaunchPlan(["next", "--json", "--state", "postgresql://h/db"]).namedStore == nil)
    }

    @Test func aMistypedCommandIsCaughtBeforeAnyOtherReading() {
        guard case .mistake(let message) = LaunchPlan(["snyc"]) else {
            Issue.record("a mistyped command reached the parser")
            return
        }
        #expect(message.contains("sync"), "the nearest command is named: \(message)")
        guard case .mistake = LaunchPlan(["feeds", "ad", "x", "http://127.0.0.1/"]) else {
            Issue.record("a mistyped subcommand reached the parser")
            return
        }
    }
}
