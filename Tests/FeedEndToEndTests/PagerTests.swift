import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Plain output on a terminal fits its width and goes through `$PAGER` when longer than the
/// screen, as git's does; never when piped, never for JSON. The tests run
/// feedcli on a pseudo-terminal of a chosen size, with a pager that records what it was given.
@Suite("The pager and the terminal's width", .serialized, .timeLimit(.minutes(2)))
struct PagerTests {
    let session = StoreSession()
    let folder = temporaryStorePath("pager")

    init() async throws {
        let items = (1...30).map {
            #"{"id":"\#($0)","title":"entry number \#($0) with a title long enough to be cut"}"#
        }
        let body = "[" + items.joined(separator: ",") + "]"
        let server = try LoopbackServer { _, connection in connection.respond(200, text: body) }
        try await session.add("long", server.baseURL + "/l", kind: "linked")
        #expect(try await session.feedcli("sync", "long").status == 0)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// Runs feedcli on a pseudo-terminal `rows` × `columns`; what the terminal showed.
    private func onTerminal(_ arguments: [String], rows: Int, columns: Int, pager: String?) async throws -> String {
        try await Feedcli.onTerminal(
            arguments + ["--state", session.state], rows: rows, columns: columns, pager: pager)
    }

    private var recorded: String { folder + "/paged" }
    private var recordingPager: String { "cat > '\(recorded)'; echo PAGER-RAN" }

    @Test func aLongListGoesThroughThePagerFittedToTheWidth() async throws {
        let screen = try await onTerminal(["list"], rows: 10, columns: 40, pager: recordingPager)
        #expect(screen.contains("PAGER-RAN"), "\(screen)")
        let paged = try String(contentsOfFile: recorded, encoding: .utf8).split(separator: "\n")
        #expect(paged.count == 30)
        #expect(paged.allSatisfy { $0.count <= 40 } && paged.allSatisfy { $0.hasSuffix("…") }, "\(paged.prefix(3))")
    }

    @Test func shortOutputJSONAndPipesNeverSeeThePager() async throws {
        let short = try await onTerminal(["list", "--limit", "3"], rows: 10, columns: 200, pager: recordingPager)
        #expect(!short.contains("PAGER-RAN") && short.contains("with a title long enough to be cut\n"), "\(short)")
        #expect(short.split(separator: "\n").count == 3)
        let json = try await onTerminal(["list", "--json"], rows: 10, columns: 40, pager: recordingPager)
        #expect(
            !json.contains("PAGER-RAN")
                && json.contains(#""title":"entry number 1 with a title long enough to be cut""#))
        let piped = try await Feedcli.run(
            Feedcli.onStore(session.state, ["list"]), environment: ["PAGER": recordingPager])
        #expect(
            piped.stdout.split(separator: "\n").count == 30 && !piped.stdout.contains("…"),
            "a pipe: no pager, no cutting")
        #expect(!FileManager.default.fileExists(atPath: recorded))
        let off = try await onTerminal(["list"], rows: 10, columns: 200, pager: "")
        #expect(off.split(separator: "\n").count == 30, "PAGER= turns it off")
    }

    @Test func statusAndShowArePagedToo() async throws {
        let status = try await onTerminal(["feeds", "list"], rows: 2, columns: 80, pager: recordingPager)
        #expect(status.contains("PAGER-RAN"))
        #expect(try String(contentsOfFile: recorded, encoding: .utf8).contains("long (linked)"))
    }
}
