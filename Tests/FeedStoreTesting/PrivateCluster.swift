import FeedTesting
import Foundation
import Testing

/// A PostgreSQL cluster of this test process's own (`scripts/postgres-cluster.sh`): the one the
/// PostgreSQL tests share when none is given, or one test's own, for a test that stops and
/// restarts the server. The script is a `SpawnedProcess` run to its end: Foundation's `Process`
/// watches a child through a socket the child inherits, and the server the script leaves
/// running would inherit every such socket of the test process (as it did through `system(3)`),
/// so that no test saw its own child's exit again. Every step blocks, so each runs on a thread
/// of its own.
public struct PrivateCluster: Sendable {
    public let folder: String
    public let url: String

    /// Starts a new cluster: its role's URL, or why none could be started.
    public static func start() async throws(PostgresDatabases.Unavailable) -> PrivateCluster {
        let folder = TestScratch.folder("postgres").path
        let started = await onOwnThread { script("start", folder) }
        guard started == 0, let url = try? String(contentsOfFile: folder + ".out", encoding: .utf8) else {
            let said =
                (try? String(contentsOfFile: folder + ".err", encoding: .utf8))?
                .split(separator: "\n").last.map(String.init) ?? "exit \(started)"
            throw PostgresDatabases.Unavailable(reason: "no private cluster could be started (\(said))")
        }
        return PrivateCluster(folder: folder, url: url.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs the script's `command` (halt, resume) on the cluster; a failure fails the test.
    public func run(_ command: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        let folder = self.folder
        let status = await onOwnThread { Self.script(command, folder) }
        if status != 0 {
            Issue.record(
                "postgres-cluster.sh \(command): \((try? String(contentsOfFile: folder + ".err", encoding: .utf8)) ?? "")",
                sourceLocation: sourceLocation)
        }
    }

    /// Stops the cluster and removes its folder, on a thread of its own, not awaited.
    public func remove() {
        let folder = self.folder
        Thread { _ = Self.script("stop", folder) }.start()
    }

    /// Stops the cluster and removes its folder, blocking: for an `atexit` handler.
    public func removeNow() { _ = Self.script("stop", folder) }

    /// Runs the script's `command` to its end, blocking: its exit status. Its output goes to
    /// `folder.out` and `folder.err`; it inherits no other descriptor of the test process, so
    /// the server it starts holds none of the pipes or sockets the tests wait on.
    private static func script(_ command: String, _ folder: String) -> Int32 {
        let script = Fixtures.root.deletingLastPathComponent().appendingPathComponent("scripts/postgres-cluster.sh")
            .path
        let out = open(folder + ".out", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let err = open(folder + ".err", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            if out >= 0 { close(out) }
            if err >= 0 { close(err) }
        }
        guard out >= 0, err >= 0 else { return 126 }
        return SpawnedProcess.runBlocking(
            "/bin/bash", [script, command, folder],
            environment: ProcessInfo.processInfo.environment, stdout: out, stderr: err)
    }
}
