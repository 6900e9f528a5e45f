import FeedRendering
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Plain output laid out for a person, as the built `feedcli` prints it: tables padded by
/// terminal columns, text wrapped on a terminal only (the units: `DisplayWidthTests`,
/// `HTMLTextTests`).
@Suite("Plain text layout of the binary", .timeLimit(.minutes(3)))
struct PlainTextLayoutTests {
    @Test func statusRowsLineUpWhateverTheScript() async throws {
        let session = StoreSession()
        try await session.add("日本語のブログ", "http://127.0.0.1:9/j", kind: "linked")
        try await session.add("plain", "http://127.0.0.1:9/p", kind: "linked")
        let table = try await session.feedcli("status").stdout.split(separator: "\n").map(String.init)
        #expect(table.count == 3, "\(table)")
        // KIND starts at the same column on every row.
        let columns = table.map { line -> Int? in
            guard let range = line.range(of: line.hasPrefix("FEED") ? "KIND" : "linked") else { return nil }
            return DisplayWidth.of(String(line[..<range.lowerBound]))
        }
        #expect(Set(columns).count == 1 && columns.allSatisfy { $0 != nil }, "\(table)")
    }

    @Test func plainOutputIsWrappedOnlyOnATerminal() async throws {
        let session = StoreSession()
        let long = String(repeating: "word ", count: 40)
        let server = try LoopbackServer { _, connection in
            connection.respond(
                200,
                text: #"[{"id":1,"title":"t","body":"<p>\#(long)</p><p><a href=\"https://e.example/\">more</a></p>"}]"#)
        }
        try await session.add("h", server.baseURL + "/feed", kind: "linked")
        _ = try await session.feedcli("sync", "h")
        let piped = try await session.feedcli("show", "1", "--feed", "h")
        #expect(piped.stdout.contains(long.trimmingCharacters(in: .whitespaces)), "never wrapped when piped")
        #expect(piped.stdout.contains("more [1]") && piped.stdout.contains("\n[1] https://e.example/\n"))
        let terminal = try await Feedcli.shell(
            #"script -qec "COLUMNS=30 $FEEDCLI show 1 --feed h --state $S" /dev/null"#,
            environment: ["S": session.state])
        let lines = terminal.stdout.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
        #expect(lines.count > 5 && lines.allSatisfy { $0.count <= 30 }, "\(terminal.stdout)")
    }
}
