import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// The README reads as a user reads, and its first-feed steps work as
/// written: the test runs them, offline, against the fixture server.
@Suite("The README", .serialized, .timeLimit(.minutes(2)))
struct ReadmeTests {
    let readme: String

    init() throws {
        readme = try String(
            contentsOf: Fixtures.root.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// A README for users, at most about 300 lines, installing from the
    /// package first; the test command CI runs is in it; the rest is in docs/, linked.
    @Test func itIsOrderedAsAUserReadsIt() throws {
        #expect(
            readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 300,
            "a README of at most 300 lines")
        let first = try #require(readme.range(of: "```sh\n"))
        let block = readme[first.upperBound...].prefix { $0 != "`" }
        // Where scripts/package.sh writes it (its default folder, dist/), so the line works as written.
        #expect(
            block.hasPrefix("sudo apt install ./dist/feedcli_"), "installing from the package comes first: \(block)")
        let packaging = try String(
            contentsOf: Fixtures.root.deletingLastPathComponent().appendingPathComponent("scripts/package.sh"),
            encoding: .utf8)
        #expect(packaging.contains(#"out="${1:-dist}""#), "package.sh writes into dist/ by default")
        #expect(readme.contains("Someone builds it\nonce, with Swift 6"), "who builds the package, and with what")
        #expect(readme.contains("\nbash scripts/test.sh "), "the test command CI runs")
        for document in ["docs/REFERENCE.md", "docs/DESIGN.md", "docs/PERFORMANCE.md", "docs/DEVELOPMENT.md"] {
            #expect(readme.contains("(\(document)"), "\(document) is linked")
            #expect(
                FileManager.default.fileExists(
                    atPath: Fixtures.root.deletingLastPathComponent().appendingPathComponent(document).path))
        }
        let headings = [
            "## Install", "## A first feed in five commands", "## Daily use", "## Reference", "## Development",
            "## Changelog",
        ]
        let places = headings.map { readme.range(of: "\n" + $0 + "\n")?.lowerBound }
        #expect(places.allSatisfy { $0 != nil }, "\(zip(headings, places).filter { $0.1 == nil }.map(\.0))")
        #expect(places.compactMap { $0 } == places.compactMap { $0 }.sorted(), "in this order: \(headings)")
        #expect(
            readme.contains("[CHANGELOG.md](CHANGELOG.md)") && !readme.contains("### 0.1.0"),
            "the changelog has a file of its own")
    }

    @Test func theFirstFeedStepsWorkAsWritten() async throws {
        let section = try #require(readme.range(of: "## A first feed in five commands\n"))
        let fence = try #require(readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```\n", range: fence.upperBound..<readme.endIndex))
        let lines = readme[fence.upperBound..<end.lowerBound].split(separator: "\n")
        // The first step starts the fixture server; the test starts it itself (and stops it).
        #expect(lines.first?.hasPrefix("python3 Fixtures/serve.py --port 8089 &") == true)
        // Its own port, written once it listens: no race for a free port, and up to a minute to
        // start on a loaded machine (10 s of polling a port it might never get failed under load).
        let folder = temporaryStorePath("first-feed")
        try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
        let server = try await PythonServer.start(
            [
                Fixtures.root.appendingPathComponent("serve.py").path, "--port", "0",
                "--port-file", folder + "/port",
            ], portFile: folder + "/port")
        let port = server.port
        try FileManager.default.createSymbolicLink(atPath: folder + "/bin/feedcli", withDestinationPath: Feedcli.binary)
        let steps = lines.dropFirst().joined(separator: "\n").replacingOccurrences(of: "8089", with: String(port))
        let run = try await Feedcli.shell(
            "set -e\nexport PATH='\(folder)/bin':\"$PATH\" FEEDCLI_STATE='\(folder)/feedcli.sqlite'\n" + steps)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains("added fireball: jsonfeed 'Daring Fireball', 48 entries on the first page"),
            "\(run.stderr)")
        #expect(run.stdout.contains("[@1 fireball] ★ Update on The Talk Show Live From WWDC 2017"), "\(run.stdout)")
        #expect(run.stdout.contains("fireball  jsonfeed  47/48"), "\(run.stdout)")
        withExtendedLifetime(server) {}
    }
}
