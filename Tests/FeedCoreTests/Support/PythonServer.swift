import Foundation

/// A python3 server the tests start (the fixture server, a TLS server): it writes its port to a
/// file once listening, and is killed when this value is let go.
final class PythonServer {
    let process = Process()
    let port: Int

    /// Starts `python3 ARGUMENTS…` and waits (up to 5 s) for it to write its port to `portFile`.
    init(_ arguments: [String], portFile: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        // Its own null output: an inherited pipe would keep `swift test` waiting after the test.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port: Int?
        for _ in 0..<100 where port == nil {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if port == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw ServerDidNotStart(arguments: arguments)
        }
        self.port = port
    }

    deinit {
        // SIGKILL: a child spawned from a dispatch thread inherits its blocked SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    struct ServerDidNotStart: Error {
        var arguments: [String]
    }
}
