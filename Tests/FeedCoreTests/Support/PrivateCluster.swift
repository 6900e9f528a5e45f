import Foundation
import Testing

/// A PostgreSQL cluster of this test process's own (`scripts/postgres-cluster.sh`): the one the
/// PostgreSQL tests share when none is given, or one test's own, for a test that stops and
/// restarts the server. The script runs through `system(3)`, which waits for its own child:
/// Foundation's `Process` waited forever for a script that had run `runuser` (its SIGCHLD
/// handler was gone by the time the script ended). Every step blocks, so each runs on a thread
/// of its own.
struct PrivateCluster: Sendable {
    let folder: String
    let url: String

    /// Starts a new cluster: its role's URL, or why none could be started.
    static func start() async throws(PostgresDatabases.Unavailable) -> PrivateCluster {
        let folder = TestScratch.folder("postgres").path
        let started = await onOwnThread { script("start", folder) }
        guard started == 0, let url = try? String(contentsOfFile: folder + ".out", encoding: .utf8) else {
            let said = (try? String(contentsOfFile: folder + ".err", encoding: .utf8))?
                .split(separator: "\n").last.map(String.init) ?? "exit \(started)"
            throw PostgresDatabases.Unavailable(reason: "no private cluster could be started (\(said))")
        }
        return PrivateCluster(folder: folder, url: url.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs the script's `command` (halt, resume) on the cluster; a failure fails the test.
    func run(_ command: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        let folder = self.folder
        let status = await onOwnThread { Self.script(command, folder) }
        if status != 0 {
            Issue.record("postgres-cluster.sh \(command): \((try? String(contentsOfFile: folder + ".err", encoding: .utf8)) ?? "")",
                         sourceLocation: sourceLocation)
        }
    }

    /// Stops the cluster and removes its folder, on a thread of its own, not awaited.
    func remove() {
        let folder = self.folder
        Thread { _ = Self.script("stop", folder) }.start()
    }

    /// Stops the cluster and removes its folder, blocking: for an `atexit` handler.
    func removeNow() { _ = Self.script("stop", folder) }

    private static func script(_ command: String, _ folder: String) -> Int32 {
        let script = Fixtures.root.deletingLastPathComponent().appendingPathComponent("scripts/postgres-cluster.sh").path
        return system("bash '\(script)' \(command) '\(folder)' >'\(folder).out' 2>'\(folder).err' </dev/null")
    }
}
