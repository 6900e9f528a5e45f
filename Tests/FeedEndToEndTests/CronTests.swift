import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// What a crontab line needs: stderr lines that say when they were written
/// when stderr is a log file, and a README line that names feedcli by a path cron can find.
@Suite("Cron's view: timed log lines, an absolute path", .timeLimit(.minutes(2)))
struct CronTests {
    @Test func stderrIntoAFileStartsEachLineWithItsTime() async throws {
        let session = StoreSession()
        #expect(try await session.feedcli("read", "--all").status == 0)  // creates the store's folder
        let log = session.state + ".err"
        let run = try await Feedcli.shell(
            #""$FEEDCLI" next nope --state "$S" 2>> "$L"; "$FEEDCLI" next nope2 --state "$S" 2>> "$L""#,
            environment: ["S": session.state, "L": log])
        #expect(run.status == 66)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        for (line, name) in zip(lines, ["nope", "nope2"]) {
            let stamp = line.prefix { $0 != " " }
            #expect(Timestamp.parse(String(stamp)) != nil && stamp.hasSuffix("Z"), "\(line)")
            #expect(line.dropFirst(stamp.count + 1).hasPrefix("feedcli: no feed named \(name)"), "\(line)")
        }
        let piped = try await session.feedcli("next", "nope")
        #expect(piped.stderr.hasPrefix("feedcli: no feed named nope"), "a pipe gets the line as it is")
    }

    @Test func theREADMEsCrontabLineNamesFeedcliByAnAbsolutePath() throws {
        let readme = try String(
            contentsOf: Fixtures.root.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n").filter { $0.hasPrefix("*/") }
        #expect(lines.count >= 2)
        for line in lines {
            let command = line.split(separator: " ", maxSplits: 5)[5]
            #expect(command.hasPrefix("/") || command.hasPrefix("$HOME/"), "\(line)")
            #expect(!command.contains("&& feedcli"), "every feedcli of the line: \(line)")
            // Cron's environment may lack the XDG_STATE_HOME that finds the default store.
            let runs = command.components(separatedBy: "bin/feedcli ").count - 1
            #expect(
                command.components(separatedBy: "--state ").count - 1 == runs, "every feedcli names its store: \(line)")
        }
    }
}
