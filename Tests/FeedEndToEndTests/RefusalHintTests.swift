import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// What a refusal tells the person who runs `sync`: how long a 429's server asked to wait (and
/// `status` shows it to the minute), and which token a 401 got and how to send the right one
/// (`feeds add` said so; `sync` did not).
@Suite("sync says how to get past a refusal", .timeLimit(.minutes(2)))
struct RefusalHintTests {
    @Test func a429SaysHowLongTheServerAskedToWait() async throws {
        let server = try LoopbackServer { _, connection in
            connection.respond(429, headers: [("Retry-After", "6240")], text: "{}")
        }
        let session = StoreSession()
        try await session.add("busy", server.baseURL + "/feed", kind: "linked")
        let run = try await session.feedcli("sync", "busy")
        #expect(run.status == 75)
        #expect(
            run.stderr.contains("HTTP 429 from \(server.baseURL)/feed; the server asks to wait 1h44m (Retry-After)"),
            "\(run.stderr)")
        let status = try await session.feedcli("status", "busy")
        #expect(status.stdout.contains("in 1h44m") || status.stdout.contains("in 1h43m"), "\(status.stdout)")
    }

    @Test func a401SaysWhichTokenWentAndHowToSendOne() async throws {
        let server = try LoopbackServer { _, connection in connection.respond(401, text: "{}") }
        let session = StoreSession()
        try await session.add("private", server.baseURL + "/feed", kind: "linked")
        let none = try await session.feedcli("sync", "private")
        #expect(none.status == 77)
        #expect(
            none.stderr.contains(
                "(no token was sent: feedcli feeds set private --token-env VAR sends the one in $VAR)"),
            "\(none.stderr)")
        #expect(try await session.feedcli("feeds", "set", "private", "--token-env", "PRIVATE_TOKEN").status == 0)
        let wrong = try await Feedcli.run(
            Feedcli.onStore(session.state, ["sync", "private"]), environment: ["PRIVATE_TOKEN": "nope"])
        #expect(wrong.stderr.contains("(the token in $PRIVATE_TOKEN was refused)"), "\(wrong.stderr)")
    }
}

/// Each command's help lists what it uses: `store copy` takes its stores as arguments, so no
/// `--state`; `follow` prints no single JSON value, so no `--json` (refused with the reason when
/// given), and says which options are for its polled feeds; no option says its default twice.
@Suite("Help lists what the command uses", .timeLimit(.minutes(1)))
struct CommandHelpTests {
    @Test func storeCopyHasNoStateAndFollowSaysADefaultOnce() async throws {
        let copy = try await Feedcli.run(["store", "copy", "--help"]).stdout
        #expect(!copy.contains("--state") && copy.contains("--wait <seconds>"), "\(copy)")
        #expect(
            try await Feedcli.run(["store", "copy", "a", "b", "--wait=-1"]).stderr.contains("--wait must be between"))
        let follow = try await Feedcli.run(["follow", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        #expect(
            follow.contains("heartbeats included. (default: 90.0)") && !follow.contains("(default 90)"), "\(follow)")
        #expect(!follow.contains("--json ") && follow.contains("--jsonl"), "\(follow)")
        #expect(follow.contains("--max-pages, --force, --jobs and --retries apply to them"), "\(follow)")
        let json = try await Feedcli.run(["follow", "--json"])
        #expect(json.status == 64 && json.stderr.contains("a stream has no end: use --jsonl"), "\(json.stderr)")
    }

    @Test(arguments: [["sync"], ["follow"], ["next"], ["feeds", "add"], ["feeds", "set"], ["list"], ["status"]])
    func noOptionSaysItsDefaultTwice(_ command: [String]) async throws {
        let help = try await Feedcli.run(command + ["--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        // "…; default 60s). (default: 60s)": the text's own default, then ArgumentParser's.
        let twice = try Regex(#"default:? [^ )]+\)\. \(default: "#)
        #expect(help.firstMatch(of: twice) == nil, "\(help)")
    }
}
