import FeedModel
import FoundationEssentials

/// The opening handshake of RFC 6455 §4, as a client makes it: the upgrade request's headers,
/// and the check of the server's answer (101, `Upgrade: websocket`, `Connection: Upgrade`, and
/// `Sec-WebSocket-Accept` made from this request's key), so that a server that did not agree to
/// speak WebSocket (a proxy, a plain HTTP server answering 200) is never read as one.
package struct WebSocketHandshake: Sendable {
    /// The request's `Sec-WebSocket-Key`: 16 random bytes, base64.
    package let key: String

    /// A handshake with a fresh key drawn from the system's random source.
    package init() {
        var generator = SystemRandomNumberGenerator()
        key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    /// A handshake with `key` (tests, and RFC 6455's own example).
    package init(key: String) {
        self.key = key
    }

    /// The headers of the upgrade request (besides `Host`, which the connection writes).
    package var requestHeaders: [(name: String, value: String)] {
        [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
            ("Sec-WebSocket-Version", "13"),
        ]
    }

    /// The `Sec-WebSocket-Accept` a server must answer this key with: base64(SHA-1(key + the
    /// protocol's GUID)); nil when SHA-1 cannot be had (libcrypto not loaded).
    package var expectedAccept: String? {
        guard let digest = Digest.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8) else { return nil }
        return Data(digest).base64EncodedString()
    }

    /// Why the server's answer is not an agreement to speak WebSocket; nil when it is.
    /// `headers` are the answer's, names in any case.
    package func refusal(status: Int, headers: [(name: String, value: String)]) -> String? {
        func value(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value.trimmingWhitespace()
        }
        guard status == 101 else { return "the server answered HTTP \(status), not 101 Switching Protocols" }
        guard value("Upgrade")?.lowercased() == "websocket" else {
            return "the server's answer has no Upgrade: websocket"
        }
        let connection =
            value("Connection")?.lowercased().split(separator: ",").map { String($0).trimmingWhitespace() } ?? []
        guard connection.contains("upgrade") else { return "the server's answer has no Connection: Upgrade" }
        guard let expected = expectedAccept else {
            return "SHA-1 (libcrypto) is not available to check the server's answer"
        }
        guard let accept = value("Sec-WebSocket-Accept") else {
            return "the server's answer has no Sec-WebSocket-Accept"
        }
        guard accept == expected else { return "the server's Sec-WebSocket-Accept does not match the key sent" }
        // feedcli asks for no subprotocol and no extension: one the server picks anyway is a
        // language the connection was never agreed to speak (RFC 6455 4.1: fail it).
        if let protocolName = value("Sec-WebSocket-Protocol"), !protocolName.isEmpty {
            return "the server chose a subprotocol (\(Excerpt.of(protocolName, limit: 60))) that was not asked for"
        }
        if let extensions = value("Sec-WebSocket-Extensions"), !extensions.isEmpty {
            return "the server chose an extension (\(Excerpt.of(extensions, limit: 60))) that was not asked for"
        }
        return nil
    }
}
