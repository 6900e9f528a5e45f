import Foundation
import Testing

@testable import FeedHTTP

/// RFC 6455 framing as a client reads and writes it (`WebSocketFraming`), and the opening
/// handshake's check (`WebSocketHandshake`).
@Suite("WebSocket framing and handshake")
struct WebSocketFramingTests {
    /// A server's frame (never masked).
    private func frame(_ opcode: UInt8, _ payload: [UInt8], final: Bool = true, extra: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [(final ? 0x80 : 0) | extra | opcode]
        switch payload.count {
        case ..<126: bytes.append(UInt8(payload.count))
        case ..<65_536: bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> (8 * $0)) }
        }
        return bytes + payload
    }

    private func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    @Test func fragmentsAreJoinedAndControlFramesBetweenThemComeAtOnce() {
        var framing = WebSocketFraming(maxMessageSize: 1 << 20)
        let bytes = frame(0x1, text("{\"a\":"), final: false) + frame(0x9, text("hi")) + frame(0x0, text("1}"))
        #expect(framing.parse(bytes) == [.ping(text("hi")), .text(text("{\"a\":1}"))])
    }

    @Test func theSameEventsWhateverTheChunks() {
        let long = [UInt8](repeating: 0x61, count: 70_000)
        let bytes =
            frame(0x1, text("one")) + frame(0x2, long) + frame(0xA, []) + frame(0x1, text("é"), final: false)
            + frame(0x0, []) + frame(0x8, [0x03, 0xE8] + text("bye"))
        var whole = WebSocketFraming(maxMessageSize: 1 << 20)
        let expected = whole.parse(bytes)
        #expect(
            expected == [
                .text(text("one")), .binary(long), .pong([]), .text(text("é")), .close(code: 1000, reason: "bye"),
            ])
        for cut in [1, 2, 3, 5, 9, 70_004, bytes.count - 1] {
            var parts = WebSocketFraming(maxMessageSize: 1 << 20)
            #expect(parts.parse(bytes[..<cut]) + parts.parse(bytes[cut...]) == expected, "cut at \(cut)")
        }
        var oneByOne = WebSocketFraming(maxMessageSize: 1 << 20)
        #expect(bytes.flatMap { oneByOne.parse([$0]) } == expected)
    }

    @Test func aMessageOverTheLimitIsCountedAndDroppedAndTheNextIsRead() {
        var framing = WebSocketFraming(maxMessageSize: 10)
        let bytes = frame(0x1, text("12345678"), final: false) + frame(0x0, text("90abc")) + frame(0x1, text("ok"))
        #expect(framing.parse(bytes) == [.oversized(13), .text(text("ok"))])
    }

    @Test func aTextMessageThatIsNotUTF8IsSaidAndTheStreamGoesOn() {
        var framing = WebSocketFraming(maxMessageSize: 100)
        #expect(
            framing.parse(frame(0x1, [0xFF, 0xFE]) + frame(0x1, text("{}"))) == [.invalidText(2), .text(text("{}"))])
    }

    @Test(arguments: [
        ([0x81, 0x82, 1, 2, 3, 4, 0, 0] as [UInt8], "masked"),
        ([0xC1, 0x00], "reserved bits"),
        ([0x83, 0x00], "unknown opcode"),
        ([0x09, 0x00], "fragmented control"),
        ([0x89, 126, 0, 126], "longer than 125"),
        ([0x80, 0x00], "continuation frame with no message"),
        ([0x01, 0x01, 0x61, 0x81, 0x00], "a new message before"),
        ([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0], "over 2^63"),
        ([0x88, 0x01, 0x03], "one-byte code"),
        ([0x88, 0x02, 0x03, 0xED], "code 1005"),
    ])
    func aFrameNoServerMaySendEndsTheReading(bytes: [UInt8], why: String) {
        var framing = WebSocketFraming(maxMessageSize: 100)
        let events = framing.parse(bytes + frame(0x1, text("after")))
        guard case .violation(let code, let message)? = events.last, events.count == 1 else {
            Issue.record("expected one violation, got \(events)")
            return
        }
        #expect(code == 1002)
        #expect(message.contains(why))
    }

    @Test func aCloseReasonThatIsNotUTF8Is1007() {
        var framing = WebSocketFraming(maxMessageSize: 100)
        #expect(
            framing.parse(frame(0x8, [0x03, 0xE8, 0xFF])) == [
                .violation(code: 1007, "a close frame whose reason is not UTF-8")
            ])
    }

    @Test func theClientsFramesAreMaskedAndReadBackThroughTheMask() {
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        // RFC 6455 §5.7: a masked "Hello".
        #expect(
            WebSocketFraming.clientFrame(.text, payload: text("Hello"), mask: mask)
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        let long = WebSocketFraming.clientFrame(.binary, payload: [UInt8](repeating: 0, count: 300), mask: mask)
        #expect(Array(long[..<4]) == [0x82, 0x80 | 126, 0x01, 0x2C])
        #expect(Array(long[8...11]) == mask, "zero bytes masked are the mask")
        let close = WebSocketFraming.closeFrame(code: 1000, reason: String(repeating: "é", count: 100), mask: mask)
        #expect(close.count - 6 <= 125, "a control frame's payload is at most 125 bytes")
        let unmasked = close[6...].enumerated().map { $0.element ^ mask[$0.offset & 3] }
        #expect(String(validating: unmasked.dropFirst(2), as: UTF8.self) != nil, "a reason is cut between characters")
    }

    @Test func theHandshakeChecksTheAcceptKeyOfRFC6455sExample() throws {
        // RFC 6455 §1.3.
        let handshake = WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(handshake.expectedAccept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let agreed = [
            ("Upgrade", "websocket"), ("connection", "keep-alive, Upgrade"),
            ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
        ]
        #expect(handshake.refusal(status: 101, headers: agreed) == nil)
        #expect(handshake.refusal(status: 200, headers: agreed)?.contains("HTTP 200") == true)
        var wrong = agreed
        wrong[2].1 = "AAAAAAAAAAAAAAAAAAAAAAAAAAA="
        #expect(handshake.refusal(status: 101, headers: wrong)?.contains("does not match") == true)
        #expect(
            handshake.refusal(status: 101, headers: Array(agreed.prefix(2)))?.contains("no Sec-WebSocket-Accept")
                == true)
        // A subprotocol or an extension feedcli did not ask for: the connection fails (RFC 6455
        // 4.1), before a compressed frame could arrive.
        #expect(
            handshake.refusal(status: 101, headers: agreed + [("Sec-WebSocket-Protocol", "chat")])?.contains(
                "subprotocol (chat) that was not asked for") == true)
        #expect(
            handshake.refusal(status: 101, headers: agreed + [("sec-websocket-extensions", "permessage-deflate")])?
                .contains("extension (permessage-deflate) that was not asked for") == true)
        #expect(WebSocketHandshake().key != WebSocketHandshake().key)
        #expect(Data(base64Encoded: WebSocketHandshake().key)?.count == 16)
    }
}
