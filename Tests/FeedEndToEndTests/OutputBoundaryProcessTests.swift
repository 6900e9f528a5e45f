import FeedCore
import FeedReactor
import FeedReactorTesting
import FeedStore
import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// The output boundary through the binary and real descriptors: a full disk, a closed stdout,
/// and a pipe whose reader leaves after three lines.
@Suite("feedcli at the output boundary, as a process", .serialized, .timeLimit(.minutes(3)))
struct OutputBoundaryProcessTests {
    let state = temporaryStorePath()
    let server: PagedServer

    init() async throws {
        server = try PagedServer(kind: .linked, count: 10, pageSize: 10)
        #expect(
            try await Feedcli.run(["feeds", "add", "l", server.url, "--kind", "linked", "--state", state]).status == 0)
    }

    func ids(_ text: String) -> [String] { JSONLines.ids(text) }

    func knownIDs(unreadOnly: Bool = false) throws -> [String] {
        var ids: [String] = []
        try FeedStore.open(at: state).forEachEntry(feed: "l", unreadOnly: unreadOnly, limit: nil) {
            ids.append($0.id)
            return true
        }
        return ids
    }

    @Test func theCronRecipeOnAFullDiskCommitsNothingAndExits74() async throws {
        let run = try await Feedcli.shell(
            #""$FEEDCLI" sync l --jsonl --quiet --state "$S" >/dev/full"#, environment: ["S": state])
        #expect(run.status == 74)
        #expect(
            run.stderr == "feedcli: cannot write to stdout (No space left on device): 0 of 10 new entries of l "
                + "were printed and stored; the other 10 come again with the next sync\n")
        #expect(try knownIDs().isEmpty)
        let retry = try await Feedcli.run(["sync", "l", "--jsonl", "--state", state])
        #expect(ids(retry.stdout) == (1...10).map(String.init), "the next run delivers everything")
    }

    @Test func nextIntoAFullDiskMarksNothingRead() async throws {
        #expect(try await Feedcli.run(["sync", "l", "--state", state]).status == 0)
        let run = try await Feedcli.shell(#""$FEEDCLI" next l --state "$S" >/dev/full"#, environment: ["S": state])
        #expect(run.status == 74)
        #expect(run.stderr.contains("the entry l/1 was not marked read"))
        #expect(try knownIDs(unreadOnly: true).count == 10)
        #expect(
            try await Feedcli.run(["next", "l", "--json", "--state", state]).json.map {
                ($0 as? [String: Any])?["id"] as? String
            } == "1")
    }

    /// Each entry goes to a file in a write(2) of its own, so that a kill (SIGKILL of
    /// `follow >> log`) can cut the output only between JSON lines: a line was cut mid-object
    /// and the next run's first line joined to it. strace shows the writes.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace"))
    func eachEntryGoesToAFileInAWriteOfItsOwn() async throws {
        let posts = try LoopbackServer { _, connection in
            let long = String(repeating: "x", count: 20_000)
            connection.respond(
                200,
                text:
                    #"[{"id":3,"title":"c","body":"s"},{"id":2,"title":"b","body":"\#(long)"},{"id":1,"title":"a","body":"s"}]"#
            )
        }
        let session = StoreSession()
        try await session.add("p", posts.baseURL + "/feed", kind: "linked")
        let folder = TestScratch.folder("writes").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let run = try await Feedcli.shell(
            #"strace -f -e trace=write -o "$D/trace" "$FEEDCLI" sync p --jsonl --state "$S" >"$D/out""#,
            environment: ["S": session.state, "D": folder])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: folder + "/out", encoding: .utf8).split(separator: "\n").map {
            $0.utf8.count + 1
        }
        let trace = try String(contentsOfFile: folder + "/trace", encoding: .utf8).split(separator: "\n")
        let writes = trace.filter { $0.contains(" write(1, ") }.compactMap {
            $0.split(separator: " = ").last.flatMap { Int($0) }
        }
        #expect(lines.count == 3)
        #expect(writes == lines, "one write(2) a line, each whole: \(writes) for lines of \(lines)")
    }

    @Test func aClosedStdoutIs74() async throws {
        let run = try await Feedcli.shell(#""$FEEDCLI" sync l --jsonl --state "$S" >&-"#, environment: ["S": state])
        #expect(run.status == 74)
        #expect(run.stderr.contains("cannot write to stdout (Bad file descriptor)"))
        #expect(try knownIDs().isEmpty)
    }

    @Test func aReaderThatLeavesAfterThreeLinesMissesNothing() async throws {
        let first = try await Feedcli.shell(
            #""$FEEDCLI" sync l --jsonl --state "$S" | head -n 3; echo "exit ${PIPESTATUS[0]}" >&2"#,
            environment: ["S": state])
        #expect(ids(first.stdout) == ["1", "2", "3"])
        #expect(first.stderr.contains("exit 74"), "\(first.stderr)")
        #expect(first.stderr.contains("3 of 10 new entries of l were printed and stored; the other 7 come again"))
        #expect(try knownIDs() == ["1", "2", "3"], "what head took is committed; nothing else")
        let second = try await Feedcli.run(["sync", "l", "--jsonl", "--state", state])
        #expect(second.status == 0)
        let union = ids(first.stdout) + ids(second.stdout)
        #expect(union == (1...10).map(String.init), "the two runs cover every entry, once")
    }

    /// How promptly the writer sees a late reader is `ReaderWaitTests`' (its schedule, no clock);
    /// here: a reader that starts after the run has written takes everything, and all is committed.
    /// `sync | head` takes what it prints, by design; `sync --help` says so, and how to peek.
    @Test func syncsHelpSaysHowToLookWithoutTaking() async throws {
        // The help is wrapped to the terminal's width: read as one line.
        let help = try await Feedcli.run(["sync", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        #expect(help.contains("`feedcli sync | head -5` stores the five it took, exits 74"), "\(help)")
        #expect(help.contains("feedcli list --unread"), "\(help)")
    }

    @Test func aReaderThatReadsOnlyLaterMissesNothing() async throws {
        let run = try await Feedcli.shell(
            #"{ "$FEEDCLI" sync l --jsonl --state "$S"; echo "exit $?" >&2; } | { read -r first; echo "$first"; cat; }"#,
            environment: ["S": state])
        #expect(run.stderr == "exit 0\n")
        #expect(ids(run.stdout) == (1...10).map(String.init))
        #expect(try knownIDs().count == 10)
    }

    @Test func listStopsQuietlyWhenTheReaderLeaves() async throws {
        #expect(try await Feedcli.run(["sync", "l", "--state", state]).status == 0)
        let run = try await Feedcli.shell(
            #""$FEEDCLI" list --jsonl --state "$S" | head -n 1; echo "exit ${PIPESTATUS[0]}" >&2"#,
            environment: ["S": state])
        #expect(ids(run.stdout) == ["1"])
        #expect(run.stderr == "exit 0\n")
        let full = try await Feedcli.shell(#""$FEEDCLI" list --state "$S" >/dev/full"#, environment: ["S": state])
        #expect(full.status == 74)
    }

    // What a reader took is what is committed, however slow it is, and whenever the run is
    // interrupted. Before, a reader that let 250 ms pass without reading was
    // trusted from then on (everything written counted, and was lost when it died), and Ctrl-C did
    // not stop a delivery that was waiting for the reader.

    @Test func aReaderSlowerThanAQuarterSecondThatDiesLosesNothing() async throws {
        // bash's `read` takes one byte at a time from a pipe: exactly one line each.
        let first = try await Feedcli.shell(
            #""$FEEDCLI" sync l --jsonl --state "$S" | { read -r a; echo "$a"; sleep 0.6; read -r b; echo "$b"; }; "#
                + #"echo "exit ${PIPESTATUS[0]}" >&2"#, environment: ["S": state])
        #expect(JSONLines.ids(first.stdout) == ["1", "2"])
        #expect(first.stderr.contains("exit 74"), "\(first.stderr)")
        #expect(try knownIDs() == ["1", "2"], "what the reader took, nothing else")
        let second = try await Feedcli.run(["sync", "l", "--jsonl", "--state", state])
        #expect(JSONLines.ids(second.stdout) == (3...10).map(String.init))
    }

    @Test func ctrlCAfterTheReaderTookOneEntryCommitsItAndEndsTheArray() async throws {
        let run = try Feedcli.start(["sync", "l", "--json", "--state", state], reading: false)
        let reader = run.out.fileHandleForReading.fileDescriptor
        // A reader that blocks in read(2) and poll(2), as a pipeline's does: on a thread of its own.
        let (taken, secondWaits) = await onOwnThread { () -> ([UInt8], Bool) in
            var taken: [UInt8] = []
            var byte: UInt8 = 0
            // Up to the end of the first entry's line (the array's `[` has a line of its own).
            while Glibc.read(reader, &byte, 1) == 1 {
                taken.append(byte)
                if byte == UInt8(ascii: "\n"), taken.count > 2 { break }
            }
            // The second entry waits in the pipe, unread: poll says so, without a timer.
            var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            return (taken, poll(&ready, 1, 10_000) == 1)
        }
        #expect(String(decoding: taken, as: UTF8.self).contains(#""id":"1""#))
        #expect(secondWaits, "the second entry reached the pipe")
        kill(run.process.processIdentifier, SIGINT)
        // feedcli ends before the reader reads on (what it leaves fits the pipe's buffer).
        await run.exit()
        let rest = await run.finish()
        #expect(rest.status == 130, "\(rest.stderr)")
        let whole = String(decoding: taken, as: UTF8.self) + rest.stdout
        let array = try JSONSerialization.jsonObject(with: Data(whole.utf8)) as? [[String: Any]]
        #expect(array?.compactMap { $0["id"] as? String } == ["1", "2"], "the array is ended: \(whole)")
        #expect(try knownIDs() == ["1"], "only what the reader had taken when interrupted")
        let next = try await Feedcli.run(["sync", "l", "--jsonl", "--state", state])
        #expect(JSONLines.ids(next.stdout) == (2...10).map(String.init), "the untaken entry comes again")
    }

    /// A reader that takes nothing (a script that reads only after feedcli exits) is waited for,
    /// and after `--wait` seconds one stderr line says which entry waits and what Ctrl-C does.
    @Test func aReaderThatTakesNothingIsToldAboutOnceAfterTheWait() async throws {
        let run = try Feedcli.start(["sync", "l", "--jsonl", "--wait", "1", "--state", state], reading: false)
        let errors = run.err.fileHandleForReading.fileDescriptor
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(errors, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        let notice = String(decoding: line, as: UTF8.self)
        #expect(notice.hasPrefix("feedcli: the reader of stdout has not taken entry @"), "\(notice)")
        #expect(notice.contains(" of l for 1 s; waiting on (Ctrl-C commits what it has taken)"), "\(notice)")
        let rest = await run.finish()
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(rest.stderr.isEmpty, "said once: \(rest.stderr)")
        #expect(ids(rest.stdout) == (1...10).map(String.init), "then the reader took everything")
    }
}
