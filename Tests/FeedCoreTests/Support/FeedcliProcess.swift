import FeedCore
import Foundation

/// Runs the built `feedcli` binary, as a user or cron would.
struct FeedcliRun {
    var status: Int32
    var stdout: String
    var stderr: String

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
}

enum Feedcli {
    static let binary = Fixtures.root.deletingLastPathComponent()
        .appendingPathComponent(".build/debug/feedcli").path

    /// Starts feedcli; call `finish` on the result to wait for it.
    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Started {
        try launch(binary, arguments, environment: environment)
    }

    /// `arguments` on the store at `state`, without retries for the commands that fetch (so a
    /// failure is immediate).
    static func onStore(_ state: String, _ arguments: [String]) -> [String] {
        let fetches = ["next", "sync"].contains(arguments.first ?? "")
        return arguments + ["--state", state] + (fetches ? ["--retries", "0"] : [])
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> FeedcliRun {
        try start(arguments, environment: environment).finish()
    }

    /// Runs a bash script in which `$FEEDCLI` is the binary: for redirections and pipelines
    /// (`"$FEEDCLI" sync >/dev/full`, `… | head -n 3`).
    static func shell(_ script: String, environment: [String: String] = [:]) throws -> FeedcliRun {
        try launch("/bin/bash", ["-c", script], environment: environment.merging(["FEEDCLI": binary]) { $1 }).finish()
    }

    private static func launch(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Started {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["FEEDCLI_STATE"] = nil
        env["FEEDCLI_TOKEN"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Started(process: process, out: out, err: err)
    }

    struct Started {
        let process: Process
        let out: Pipe
        let err: Pipe

        /// Waits for the process, reading stdout and stderr at the same time (a child that fills
        /// one pipe while the other is read would never finish).
        func finish() -> FeedcliRun {
            let stderr = Locked(Data())
            let stderrRead = DispatchSemaphore(value: 0)
            let handle = err.fileHandleForReading
            Thread {
                let data = handle.readDataToEndOfFile()
                stderr.withLock { $0 = data }
                stderrRead.signal()
            }.start()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            stderrRead.wait()
            process.waitUntilExit()
            return FeedcliRun(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                              stderr: String(decoding: stderr.value, as: UTF8.self))
        }
    }
}
