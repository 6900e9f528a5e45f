import Foundation
import Testing

/// Commands that only read never create files (issue 20, item 6): before, `list`, `status` and
/// `feeds list` with a mistyped `--state` created its folder and a new empty store there.
@Suite("Commands that only read create nothing", .timeLimit(.minutes(2)))
struct ReadOnlyCommandTests {
    @Test(arguments: [
        (["list"], ""), (["list", "--json"], "[]\n"), (["status"], ""), (["status", "--json"], "[]\n"),
        (["feeds", "list", "--json"], "[]\n"), (["list", "--jsonl", "--unread"], ""),
    ])
    func aMissingStoreReadsAsAnEmptyOneAndStaysMissing(arguments: [String], stdout: String) throws {
        let folder = temporaryStorePath("missing")
        let state = folder + "/typo/feedcli.sqlite"
        let run = try Feedcli.run(arguments + ["--state", state])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == stdout)
        #expect(run.stderr == "feedcli: no store at \(state) yet (next, sync and feeds add create it)\n")
        #expect(!FileManager.default.fileExists(atPath: folder), "no folder, no file")
    }

    @Test func exportShowAndAnUnknownFeedOnAMissingStore() throws {
        let folder = temporaryStorePath("missing")
        let state = folder + "/feedcli.sqlite"
        let export = try Feedcli.run(["export", "--format", "jsonfeed", "--state", state])
        #expect(export.status == 0 && export.stdout.contains(#""items":["#))
        #expect(try Feedcli.run(["show", "1", "--state", state]).status == 66)
        #expect(try Feedcli.run(["status", "posts", "--state", state]).status == 66, "an empty store has no feed")
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(try Feedcli.run(["feeds", "add", "p", "http://127.0.0.1:9/p", "--kind", "indexed", "--state", state]).status == 0)
        #expect(FileManager.default.fileExists(atPath: state), "a command that writes creates it")
        let listed = try Feedcli.run(["feeds", "list", "--json", "--state", state])
        #expect(listed.stderr.isEmpty && listed.stdout.contains(#""p""#))
    }
}
