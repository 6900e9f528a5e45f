@testable import FeedCore
import Foundation
import Testing

/// The small defects of issue 19, item 13 (and the busy wait of item 12), each with the
/// behaviour users get now.
@Suite("Small promises: dates, messages, timeouts, waits", .timeLimit(.minutes(3)))
struct SmallContractTests {
    @Test func anImpossibleDateIsNoneNeverRolledOver() {
        #expect(Timestamp.parse("2026-02-30T10:00:00Z") == nil, "was March 2")
        #expect(Timestamp.parse("2026-04-31T10:00:00Z") == nil)
        #expect(Timestamp.parse("2023-02-29T10:00:00Z") == nil)
        #expect(Timestamp.parse("2024-02-29T10:00:00Z") != nil, "a leap day")
        #expect(Timestamp.parse("2000-02-29T10:00:00Z") != nil && Timestamp.parse("1900-02-29T10:00:00Z") == nil)
        #expect(Timestamp.normalize("2026-02-30T10:00:00+0000") == nil)
        #expect(FeedTime.normalize(.string("Mon, 30 Feb 2026 10:00:00 GMT")) == nil)
        #expect(HTTPDate.parse("Mon, 31 Jun 2026 10:00:00 GMT") == nil)
    }

    @Test func messagesEscapeAsPlainOutputDoesNotAsSwiftDoes() throws {
        #expect(Excerpt.of("a\u{1B}[31mb\u{9B}c", limit: 60) == #"a\x1B[31mb\u009Bc"#)
        #expect(Excerpt.of("abcdef", limit: 3) == "abc…")
        let server = try LoopbackServer { _, connection in connection.respond(200, text: "\u{1B}[2J not json") }
        let session = StoreSession()
        try session.add("g", server.baseURL + "/feed", kind: "graph")
        let run = try session.feedcli("sync", "g")
        #expect(run.status == 65)
        #expect(run.stderr.contains(#"\x1B[2J"#) && !run.stderr.contains("\\u{"), "\(run.stderr)")
    }

    @Test func aTinyTimeoutIsOneMillisecondNotNone() throws {
        let server = try LoopbackServer { _, connection in
            Thread.sleep(forTimeInterval: 30)
            connection.respond(200, text: "{}")
        }
        let session = StoreSession()
        try session.add("g", server.baseURL + "/feed", kind: "graph")
        // `timeout 15`: before, 0.0001 s meant no limit at all and the run waited for the server.
        let run = try Feedcli.shell(#"timeout 15 "$FEEDCLI" sync g --timeout 0.0001 --retries 0 --state "$S""#,
                                    environment: ["S": session.state])
        #expect(run.status == 75, "\(run.stderr)")
    }

    /// `--wait 0.5` waits half a second for a store another process holds; before, whole seconds
    /// were taken and 0.5 became 1 ms.
    @Test func aFractionalWaitIsHonouredByTheStore() throws {
        let session = StoreSession()
        #expect(try session.feedcli("status").status == 0)
        let holder = try Feedcli.shell(#"""
            python3 -c '
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN EXCLUSIVE")
            print("held", flush=True)
            time.sleep(3)
            ' "$S" > "$S.held" &
            for i in $(seq 1 50); do grep -q held "$S.held" 2>/dev/null && break; sleep 0.1; done
            start=$(date +%s%N)
            "$FEEDCLI" feeds add x http://127.0.0.1:9/ --kind graph --wait 0.5 --state "$S"
            echo "status $? ms $(( ($(date +%s%N) - start) / 1000000 ))"
            wait
            """#, environment: ["S": session.state])
        let words = holder.stdout.split(whereSeparator: \.isWhitespace)
        let status = words.firstIndex(of: "status").flatMap { Int(words[$0 + 1]) }
        let waited = words.firstIndex(of: "ms").flatMap { Int(words[$0 + 1]) }
        #expect(status == 75, "a busy store is a temporary failure: \(holder.stdout) \(holder.stderr)")
        #expect((waited ?? 0) >= 400, "it waited about --wait: \(holder.stdout)")
    }
}
