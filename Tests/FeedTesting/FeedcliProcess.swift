import FeedBase
import Foundation

/// Runs the built `feedcli` binary, as a user or cron would.
public struct FeedcliRun {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
}

public enum Feedcli {
    public static let binary = Fixtures.root.deletingLastPathComponent()
        .appendingPathComponent(".build/debug/feedcli").path

    /// Starts feedcli; call `finish` on the result to wait for it. Its output is read as it
    /// comes, as a reader in a pipeline would (feedcli waits for its reader to take each entry),
    /// unless `reading` is false: then the test reads `out` itself.
    public static func start(_ arguments: [String], environment: [String: String] = [:], reading: Bool = true) throws
        -> Started
    {
        let started = try launch(binary, arguments, environment: environment)
        if reading { started.readInBackground() }
        return started
    }

    /// `arguments` on the store at `state`, without retries for the commands that fetch (so a
    /// failure is immediate).
    public static func onStore(_ state: String, _ arguments: [String]) -> [String] {
        let fetches = ["next", "sync"].contains(arguments.first ?? "")
        return arguments + ["--state", state] + (fetches ? ["--retries", "0"] : [])
    }

    public static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> FeedcliRun {
        try await start(arguments, environment: environment).finish()
    }

    /// Runs a bash script in which `$FEEDCLI` is the binary: for redirections and pipelines
    /// (`"$FEEDCLI" sync >/dev/full`, `… | head -n 3`).
    public static func shell(_ script: String, environment: [String: String] = [:]) async throws -> FeedcliRun {
        try await launch("/bin/bash", ["-c", script], environment: environment.merging(["FEEDCLI": binary]) { $1 })
            .finish()
    }

    private static func launch(_ executable: String, _ arguments: [String], environment: [String: String]) throws
        -> Started
    {
        // A clean environment: only what every program needs and what the test sets, never the
        // environment of whoever runs the tests (their FEEDCLI_STATE, tokens, PAGER, BROWSER).
        var env = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": TestScratch.folder("home").path, "LANG": "C.UTF-8",
        ]
        for (key, value) in environment { env[key] = value }
        let out = Pipe()
        let err = Pipe()
        let process = try SpawnedProcess(
            executable, arguments, environment: env,
            stdout: out.fileHandleForWriting.fileDescriptor,
            stderr: err.fileHandleForWriting.fileDescriptor)
        // The child has its own copies: the pipes end when it (and what it started) is gone.
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
        return Started(process: process, out: out, err: err)
    }

    public final class Started {
        public let process: SpawnedProcess
        public let out: Pipe
        public let err: Pipe
        private let stdout = Locked(Data())
        private let stderr = Locked(Data())
        /// Signalled once for each of stdout and stderr read to its end.
        private let read = TestSignal()
        private let readers = Locked(0)

        init(process: SpawnedProcess, out: Pipe, err: Pipe) {
            self.process = process
            self.out = out
            self.err = err
        }

        /// Reads stdout and stderr to their ends on threads of their own.
        public func readInBackground() {
            // Once: a second pair of readers would split the output between them.
            guard
                readers.withLock({ readers in
                    defer { readers = 2 }
                    return readers == 0
                })
            else { return }
            for (pipe, box) in [(out, stdout), (err, stderr)] {
                let handle = pipe.fileHandleForReading
                Thread { [read] in
                    // As it comes, so that a test can see what a running process has said.
                    while case let data = handle.availableData, !data.isEmpty {
                        box.withLock { $0.append(data) }
                    }
                    read.signal()
                }.start()
            }
        }

        /// What the process wrote on stderr so far (`readInBackground` must be running).
        public var stderrSoFar: String { String(decoding: stderr.value, as: UTF8.self) }

        /// What the process wrote on stdout so far (`readInBackground` must be running).
        public var stdoutSoFar: String { String(decoding: stdout.value, as: UTF8.self) }

        /// Whether stderr came to hold `text` within `seconds` (polled every 20 ms without
        /// holding a thread; `readInBackground` must be running).
        public func waitForStderr(containing text: String, seconds: Double = 20) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if stderrSoFar.contains(text) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return stderrSoFar.contains(text)
        }

        /// Whether the process came to hold open a file whose path ends with `suffix` within 20
        /// seconds (read from /proc: how a test sees a run waiting on a lock file, without
        /// sleeping and hoping).
        ///
        /// Polled, every 5 ms, without holding a thread: what another process opens sends no
        /// signal a test could await (inotify does not watch /proc's descriptor links).
        public func waitUntilItHoldsOpen(fileEndingWith suffix: String) async -> Bool {
            let folder = "/proc/\(process.processIdentifier)/fd"
            for _ in 0..<4000 {
                let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                if descriptors.contains(where: {
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0))?.hasSuffix(suffix)
                        == true
                }) {
                    return true
                }
                if !process.isRunning { return false }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return false
        }

        /// Awaits the process's exit (its output left unread unless `readInBackground` ran).
        public func exit(seconds: Double = 300) async {
            _ = await process.exit(seconds: seconds)
        }

        /// Awaits the process's end, reading stdout and stderr at the same time (a child that
        /// fills one pipe while the other is read would never finish). Both pipes' ends come
        /// first (they close when the process and whatever it started are gone), then its exit
        /// status. A run still going after `seconds` is killed (a hang fails its test, not the
        /// whole suite), and says so.
        public func finish(seconds: Double = 300) async -> FeedcliRun {
            if readers.value == 0 { readInBackground() }
            var ended = true
            for _ in 0..<2 where ended {
                ended = await read.wait(seconds: seconds)
            }
            if !ended {
                process.send(SIGKILL)
                for _ in 0..<2 { _ = await read.wait(seconds: 10) }
            }
            _ = await process.exit(seconds: ended ? seconds : 10)
            let stderr = String(decoding: stderr.value, as: UTF8.self)
            return FeedcliRun(
                status: process.isRunning ? -1 : process.terminationStatus,
                stdout: String(decoding: stdout.value, as: UTF8.self),
                stderr: ended ? stderr : stderr + "\n[killed by the test after \(seconds) s]")
        }
    }
}
