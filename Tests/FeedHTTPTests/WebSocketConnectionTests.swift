import FeedTesting
import Foundation
import Testing

@testable import FeedHTTP

/// A WebSocket connection over curl's connect-only mode (`WebSocketConnection`), against a server
/// on 127.0.0.1 that speaks RFC 6455 by hand (`Fixtures/streams/websocket_server.py`).
@Suite("WebSocket connection", .timeLimit(.minutes(2)))
struct WebSocketConnectionTests {
    private func connect(_ url: String) async throws -> WebSocketConnection {
        try await onOwnThread {
            try WebSocketConnection(
                url: url, userAgent: "feedcli/test", connectTimeout: .seconds(5), maxMessageSize: 1 << 20)
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
        let server = try await PythonServer.webSockets()
        let connection = try await connect("ws://127.0.0.1:\(server.port)/hello")
        let events = try await readToClose(connection)
        #expect(
            events == [
                .text(Array(#"{"n":1}"#.utf8)), .ping(Array("are you there".utf8)), .text(Array(#"{"n":2}"#.utf8)),
                .close(code: 1000, reason: "bye"),
            ])
        try await onOwnThread { try connection.close(code: 1000, reason: "") }
    }

    @Test func theClientsFramesAreMaskedAndArriveWhole() async throws {
        let server = try await PythonServer.webSockets()
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
        #expect(
            events == [
                .text(Array("masked:short".utf8)), .text(Array("masked:\(long)".utf8)),
                .close(code: 1000, reason: "done"),
            ])
    }

    @Test func aWrongAcceptKeyAndARefusalAreNotConnections() async throws {
        let server = try await PythonServer.webSockets()
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

/// The connection as a cold observable (`WebSocketStream`): what a stream feed will read.
@Suite("WebSocket stream", .timeLimit(.minutes(2)))
struct WebSocketStreamTests {
    /// Subscribes to the connection at `path` and awaits its end.
    private func parts(
        _ server: PythonServer, _ path: String, idle: Duration = .seconds(5), pongWait: Duration = .seconds(5),
        maxMessageSize: Int = 100
    ) async -> Recorder<WebSocketPart> {
        let recorder = Recorder<WebSocketPart>()
        let subscription = WebSocketStream.connection(
            url: "ws://127.0.0.1:\(server.port)\(path)", userAgent: "feedcli/test", connectTimeout: .seconds(5),
            idleTimeout: idle,
            pongWait: pongWait, maxMessageSize: maxMessageSize
        ).subscribe(recorder.handler)
        await recorder.wait(seconds: 30)
        subscription.dispose()
        return recorder
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The parts without their receipts (which compare by presence).
    private func withoutReceipts(_ parts: [WebSocketPart]) -> [WebSocketPart] {
        parts.map { if case .messages(let messages, _) = $0 { .messages(messages) } else { $0 } }
    }

    @Test func messagesComeTogetherAndTheServersCloseIsSaidThenEndsTheConnection() async throws {
        let server = try await PythonServer.webSockets()
        let recorder = await parts(server, "/hello")
        #expect(
            withoutReceipts(recorder.elements) == [
                .head(HTTPResponse(status: 101, effectiveURL: "ws://127.0.0.1:\(server.port)/hello")),
                .messages([bytes(#"{"n":1}"#), bytes(#"{"n":2}"#)]), .closed(code: 1000, reason: "bye"),
            ])
        #expect(
            recorder.isCompleted && recorder.error == nil,
            "an orderly end: sync takes it as the end, a follow reconnects")
    }

    @Test func messagesThatAreNotItemsAreSaidInTheirPlace() async throws {
        let server = try await PythonServer.webSockets()
        let recorder = await parts(server, "/mixed")
        #expect(
            withoutReceipts(Array(recorder.elements.dropFirst())) == [
                .skipped("a binary message of 2 bytes (feeds are JSON text)"),
                .skipped("a text message of 2 bytes that is not UTF-8"),
                .skipped("a message of 200 bytes, over --max-size"),
                .messages([bytes(#"{"ok":1}"#)]),
                .closed(code: 1000, reason: ""),
            ])
    }

    @Test func aRefusalIsAHeadForTheReaderToJudge() async throws {
        let server = try await PythonServer.webSockets()
        let missing = await parts(server, "/missing")
        #expect(missing.elements.map { if case .head(let head) = $0 { head.status } else { 0 } } == [404])
        #expect(missing.isCompleted)
        let limited = await parts(server, "/limited")
        guard case .head(let head)? = limited.elements.first else {
            Issue.record("no head: \(limited.elements)")
            return
        }
        #expect(head.status == 429 && head.retryAfter == .seconds(120))
        let forged = await parts(server, "/badaccept")
        #expect((forged.error as? HTTPError)?.kind == .malformedReply)
    }

    @Test func silenceIsPingedAndANoPongEndsTheConnection() async throws {
        let server = try await PythonServer.webSockets()
        let started = ContinuousClock.now
        let silent = await parts(server, "/silent", idle: .milliseconds(300), pongWait: .milliseconds(400))
        #expect((silent.error as? HTTPError)?.kind == .idle)
        #expect(ContinuousClock.now - started >= .milliseconds(700))
        // A server that answers the pings keeps the connection past those bounds (300 ms of silence
        // and 2 s for the pong: 2.3 s, where the server answers for 3 s), until it closes. The
        // pong's 2 s leave a loaded machine's Python server time to answer (400 ms did not).
        let ponging = await parts(server, "/ponging", idle: .milliseconds(300), pongWait: .seconds(2))
        #expect(ponging.elements.last == .closed(code: 1001, reason: ""), "\(ponging.elements)")
        #expect(ponging.isCompleted)
    }
}
