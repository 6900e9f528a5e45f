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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
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

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> FeedcliRun {
        try start(arguments, environment: environment).finish()
    }

    struct Started {
        let process: Process
        let out: Pipe
        let err: Pipe

        func finish() -> FeedcliRun {
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return FeedcliRun(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                              stderr: String(decoding: stderr, as: UTF8.self))
        }
    }
}
