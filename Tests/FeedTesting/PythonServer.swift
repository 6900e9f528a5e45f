import Foundation

/// A python3 server the tests start (the fixture server, a TLS server): it writes its port to a
/// file once listening, and is killed when this value is let go.
public final class PythonServer: Sendable {
    /// The server's address for HTTP, `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }

    public let process = Process()
    public let port: Int

    /// The streaming test server (`Fixtures/streams/stream_server.py`: drops, silences, replays
    /// from `Last-Event-ID`, refusals), on a port of its own.
    public static func streams() async throws -> PythonServer {
        let folder = TestScratch.folder("streams")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let streams = Fixtures.root.appendingPathComponent("streams")
        let portFile = folder.appendingPathComponent("port").path
        return try await start(
            [streams.appendingPathComponent("stream_server.py").path, portFile, streams.path], portFile: portFile)
    }

    /// The WebSocket test server (`Fixtures/streams/websocket_server.py`: RFC 6455 by hand, on
    /// the standard library), on a port of its own.
    public static func webSockets() async throws -> PythonServer {
        let folder = TestScratch.folder("websocket")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portFile = folder.appendingPathComponent("port").path
        let script = Fixtures.root.appendingPathComponent("streams/websocket_server.py").path
        return try await start([script, portFile], portFile: portFile)
    }

    /// Starts `python3 ARGUMENTS…` and awaits its port in `portFile`.
    public static func start(_ arguments: [String], portFile: String) async throws -> PythonServer {
        try await onOwnThread { try PythonServer(arguments, portFile: portFile) }
    }

    /// Starts `python3 ARGUMENTS…` and waits (on the caller's thread: see `start`)
    /// for it to write its port to `portFile`; a file another process writes sends no signal.
    private init(_ arguments: [String], portFile: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        // Its own null output: an inherited pipe would keep `swift test` waiting after the test.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port: Int?
        // Up to a minute: a bound against a hang (Python with ssl starts slowly on a loaded machine).
        for _ in 0..<1200 where port == nil {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if port == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw ServerDidNotStart(arguments: arguments)
        }
        self.port = port
    }

    deinit {
        // SIGKILL: a child spawned from a dispatch thread inherits its blocked SIGTERM. Not
        // waited for: the kernel reaps it through Foundation's own child watcher.
        kill(process.processIdentifier, SIGKILL)
    }

    public struct ServerDidNotStart: Error {
        public var arguments: [String]
    }
}
