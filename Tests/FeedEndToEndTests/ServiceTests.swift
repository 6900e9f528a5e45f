import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// `follow` as a systemd user service: the unit file the package ships passes
/// `systemd-analyze verify`, and under systemd (`$JOURNAL_STREAM` naming stderr) each stderr
/// line carries a `<N>` priority prefix and no time stamp.
@Suite("As a service: the unit file and the journal's priorities", .timeLimit(.minutes(2)))
struct ServiceTests {
    static let unit = Fixtures.root.deletingLastPathComponent().appendingPathComponent(
        "packaging/systemd/feedcli-follow.service")
    static let hasSystemd = FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")

    /// `systemd-analyze verify` of the unit, as a user unit and as a unit: nothing said, 0.
    @Test(.enabled(if: hasSystemd, "needs systemd-analyze (apt-get install systemd)"))
    func theUnitFileVerifies() async throws {
        let runtime = TestScratch.folder("runtime")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        // The unit as installed names /usr/bin/feedcli, which this machine need not have (the
        // package test verifies it in the root it installed into): here the built binary stands in.
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        let here = TestScratch.folder("unit").appendingPathExtension("service")
        try text.replacingOccurrences(of: "/usr/bin/feedcli", with: Feedcli.binary).write(
            to: here, atomically: true, encoding: .utf8)
        for user in [true, false] {
            let run = try await Feedcli.shell(
                #"systemd-analyze $U verify --man=no "$F""#,
                environment: ["F": here.path, "U": user ? "--user" : "", "XDG_RUNTIME_DIR": runtime.path])
            #expect(run.status == 0 && run.stderr.isEmpty && run.stdout.isEmpty, "\(run.stdout)\(run.stderr)")
        }
        // Bounded on disk: the service writes no file of its own (entries are in the store,
        // bounded by --keep), and what follow prints goes nowhere.
        #expect(text.contains("Restart=on-failure") && text.contains("ExecStart=/usr/bin/feedcli follow\n"))
        #expect(text.contains("StandardOutput=null") && !text.contains(">>"), "no file that grows without bound")
        // The check can fail: a unit with a setting systemd cannot read is reported.
        let broken = TestScratch.folder("broken").appendingPathExtension("service")
        try text.replacingOccurrences(of: "Restart=on-failure", with: "Restart=sometimes").write(
            to: broken, atomically: true, encoding: .utf8)
        let refused = try await Feedcli.shell(#"systemd-analyze verify --man=no "$F""#, environment: ["F": broken.path])
        #expect(refused.stderr.contains("sometimes"), "\(refused.stderr)")
    }

    @Test func underSystemdEachStderrLineHasItsPriorityAndNoTimeStamp() async throws {
        let session = StoreSession()
        #expect(try await session.feedcli("read", "--all").status == 0)
        // The shell sets $JOURNAL_STREAM to its stderr's device and inode, as systemd does.
        let journal = #"export JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2); "#
        let failure = try await Feedcli.shell(
            journal + #"exec "$FEEDCLI" next nope --state "$S""#, environment: ["S": session.state])
        #expect(failure.status == 66 && failure.stderr == "<3>feedcli: no feed named nope\n", "\(failure.stderr)")
        let server = try await PythonServer.streams()
        let base = "http://127.0.0.1:\(server.port)"
        #expect(try await session.feedcli("feeds", "add", "ev", base + "/sse?count=1", "--kind", "sse").status == 0)
        let verbose = try await Feedcli.shell(
            journal + #"exec "$FEEDCLI" sync -v --jsonl --state "$S""#, environment: ["S": session.state])
        let lines = verbose.stderr.split(separator: "\n")
        #expect(
            !lines.isEmpty && lines.allSatisfy { $0.hasPrefix("<6>feedcli: ") },
            "-v lines are information: \(verbose.stderr)")
        // Usage errors (the parser's, a mistyped command) are failures too; a store not made
        // yet is said as a notice (the command exits 0).
        let usage = try await Feedcli.shell(
            journal + #"exec "$FEEDCLI" list --bogus --state "$S""#, environment: ["S": session.state])
        #expect(usage.status == 64 && usage.stderr.hasPrefix("<3>feedcli: list: unknown option"), "\(usage.stderr)")
        let mistyped = try await Feedcli.shell(journal + #"exec "$FEEDCLI" lsit"#)
        #expect(mistyped.status == 64 && mistyped.stderr.hasPrefix("<3>feedcli: "), "\(mistyped.stderr)")
        let missing = try await Feedcli.shell(
            journal + #"exec "$FEEDCLI" list --state "$S""#, environment: ["S": session.state + ".none"])
        #expect(missing.status == 0 && missing.stderr.hasPrefix("<5>feedcli: no store at "), "\(missing.stderr)")
        let elsewhere = try await Feedcli.shell(
            #"JOURNAL_STREAM=1:2 exec "$FEEDCLI" next nope --state "$S""#, environment: ["S": session.state])
        #expect(
            elsewhere.stderr == "feedcli: no feed named nope\n",
            "a JOURNAL_STREAM naming another stream changes nothing")
    }
}
