@testable import FeedHTTP
import FeedTesting
import Foundation
import Testing

/// A WebSocket connection over curl's connect-only mode (`WebSocketConnection`), against a server
/// on 127.0.0.1 that speaks RFC 6455 by hand (`Fixtures/streams/websocket_server.py`).
@Suite("WebSocket connection", .timeLimit(.minutes(2)))
struct WebSocketConnectionTests {
    private func server() async throws -> PythonServer {
        let folder = TestScratch.folder("websocket")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portFile = folder.appendingPathComponent("port").path
        let script = Fixtures.root.appendingPathComponent("streams/websocket_server.py").path
        return try await PythonServer.start([script, portFile], portFile: portFile)
    }

    private func connect(_ url: String) async throws -> WebSocketConnection {
        try await onOwnThread {
            try WebSocketConnection(url: url, userAgent: "feedcli/test", connectTimeout: .seconds(5), maxMessageSize: 1 << 20)
        }
    }

    /// Everything the connection reads until the server's close (on a thread of its own: it blocks).
    private func readToClose(_ connection: WebSocketConnection) async throws -> [WebSocketFraming.Event] {
        try await onOwnThread {
            var events: [WebSocketFraming.Event] = []
            for _ in 0..<50 {
                events += try connection.receive(waitingUpTo: .milliseconds(200))
                if events.contains(where: { if case .close = $0 { true } else { false } }) { break }
            }
            return events
        }
    }

    @Test func readsMessagesFragmentsPingsAndTheClose() async throws {
        let server = try await server()
        let connection = try await connect("ws://127.0.0.1:\(server.port)/hello")
        let events = try await readToClose(connection)
        #expect(events == [.text(Array(#"{"n":1}"#.utf8)), .ping(Array("are you there".utf8)), .text(Array(#"{"n":2}"#.utf8)),
                           .close(code: 1000, reason: "bye")])
        try await onOwnThread { try connection.close(code: 1000, reason: "") }
    }

    @Test func theClientsFramesAreMaskedAndArriveWhole() async throws {
        let server = try await server()
        let connection = try await connect("ws://127.0.0.1:\(server.port)/echo?x=1")
        let long = String(repeating: "a", count: 70_000)
        let events = try await onOwnThread { () throws -> [WebSocketFraming.Event] in
            try connection.send(.text, payload: Array("short".utf8))
            try connection.send(.text, payload: Array(long.utf8))
            try connection.close(code: 1000, reason: "done")
            var events: [WebSocketFraming.Event] = []
            for _ in 0..<50 where !events.contains(where: { if case .close = $0 { true } else { false } }) {
                events += try connection.receive(waitingUpTo: .milliseconds(200))
            }
            return events
        }
        #expect(events == [.text(Array("masked:short".utf8)), .text(Array("masked:\(long)".utf8)), .close(code: 1000, reason: "done")])
    }

    @Test func aWrongAcceptKeyAndARefusalAreNotConnections() async throws {
        let server = try await server()
        await #expect { try await connect("ws://127.0.0.1:\(server.port)/badaccept") } throws: { error in
            (error as? WebSocketConnection.Refused)?.why.contains("does not match") == true
        }
        await #expect { try await connect("ws://127.0.0.1:\(server.port)/missing") } throws: { error in
            (error as? WebSocketConnection.Refused)?.status == 404
        }
        await #expect { try await connect("http://127.0.0.1:\(server.port)/hello") } throws: { error in
            (error as? HTTPError)?.kind == .invalidURL
        }
    }
}
