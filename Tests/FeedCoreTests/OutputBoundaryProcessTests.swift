import FeedCore
import Foundation
import Testing

/// The output boundary through the binary and real descriptors: a full disk, a closed stdout,
/// and a pipe whose reader leaves after three lines.
@Suite("feedcli at the output boundary, as a process", .serialized, .timeLimit(.minutes(3)))
struct OutputBoundaryProcessTests {
    let state = temporaryStorePath()
    let server: PagedServer

    init() throws {
        server = try PagedServer(kind: .linked, count: 10, pageSize: 10)
        #expect(try Feedcli.run(["feeds", "add", "l", server.url, "--kind", "linked", "--state", state]).status == 0)
    }

    func ids(_ text: String) -> [String] { JSONLines.ids(text) }

    func storedIDs(unreadOnly: Bool = false) throws -> [String] {
        var ids: [String] = []
        try FeedStore.open(at: state).forEachEntry(feed: "l", unreadOnly: unreadOnly, limit: nil) {
            ids.append($0.id)
            return true
        }
        return ids
    }

    @Test func theCronRecipeOnAFullDiskCommitsNothingAndExits74() throws {
        let run = try Feedcli.shell(#""$FEEDCLI" sync l --jsonl --quiet --state "$S" >/dev/full"#, environment: ["S": state])
        #expect(run.status == 74)
        #expect(run.stderr == "feedcli: cannot write to stdout (No space left on device): 0 of 10 new entries of l "
                + "were printed; the rest come again with the next sync\n")
        #expect(try storedIDs().isEmpty)
        let retry = try Feedcli.run(["sync", "l", "--jsonl", "--state", state])
        #expect(ids(retry.stdout) == (1...10).map(String.init), "the next run delivers everything")
    }

    @Test func nextIntoAFullDiskMarksNothingRead() throws {
        #expect(try Feedcli.run(["sync", "l", "--state", state]).status == 0)
        let run = try Feedcli.shell(#""$FEEDCLI" next l --state "$S" >/dev/full"#, environment: ["S": state])
        #expect(run.status == 74)
        #expect(run.stderr.contains("the entry l/1 was not marked read"))
        #expect(try storedIDs(unreadOnly: true).count == 10)
        #expect(try Feedcli.run(["next", "l", "--json", "--state", state]).json.map { ($0 as? [String: Any])?["id"] as? String } == "1")
    }

    @Test func aClosedStdoutIs74() throws {
        let run = try Feedcli.shell(#""$FEEDCLI" sync l --jsonl --state "$S" >&-"#, environment: ["S": state])
        #expect(run.status == 74)
        #expect(run.stderr.contains("cannot write to stdout (Bad file descriptor)"))
        #expect(try storedIDs().isEmpty)
    }

    @Test func aReaderThatLeavesAfterThreeLinesMissesNothing() throws {
        let first = try Feedcli.shell(
            #""$FEEDCLI" sync l --jsonl --state "$S" | head -n 3; echo "exit ${PIPESTATUS[0]}" >&2"#, environment: ["S": state])
        #expect(ids(first.stdout) == ["1", "2", "3"])
        #expect(first.stderr.contains("exit 74"), "\(first.stderr)")
        #expect(first.stderr.contains("3 of 10 new entries of l were printed"))
        #expect(try storedIDs() == ["1", "2", "3"], "what head took is committed; nothing else")
        let second = try Feedcli.run(["sync", "l", "--jsonl", "--state", state])
        #expect(second.status == 0)
        let union = ids(first.stdout) + ids(second.stdout)
        #expect(union == (1...10).map(String.init), "the two runs cover every entry, once")
    }

    @Test func aReaderThatReadsOnlyLaterDoesNotStallTheRun() throws {
        let started = ContinuousClock.now
        let run = try Feedcli.shell(
            #"{ "$FEEDCLI" sync l --jsonl --state "$S"; echo "exit $?" >&2; } | { sleep 1.5; cat; }"#, environment: ["S": state])
        #expect(ContinuousClock.now - started < .seconds(2.4), "one grace period, not one per entry")
        #expect(run.stderr == "exit 0\n")
        #expect(ids(run.stdout) == (1...10).map(String.init))
        #expect(try storedIDs().count == 10)
    }

    @Test func listStopsQuietlyWhenTheReaderLeaves() throws {
        #expect(try Feedcli.run(["sync", "l", "--state", state]).status == 0)
        let run = try Feedcli.shell(
            #""$FEEDCLI" list --jsonl --state "$S" | head -n 1; echo "exit ${PIPESTATUS[0]}" >&2"#, environment: ["S": state])
        #expect(ids(run.stdout) == ["1"])
        #expect(run.stderr == "exit 0\n")
        let full = try Feedcli.shell(#""$FEEDCLI" list --state "$S" >/dev/full"#, environment: ["S": state])
        #expect(full.status == 74)
    }
}
