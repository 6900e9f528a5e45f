import FeedModel

/// RFC 6455's framing, as a client speaks it: the server's bytes read into messages, and the
/// client's frames written (masked, as a client's must be).
///
/// The one place feedcli knows WebSocket frames. Debian 12's libcurl has no WebSocket API, so a
/// connection is curl's connect-only mode with this on top; when the baseline's libcurl has
/// `curl_ws_recv`/`curl_ws_send`, this file is what it replaces.
///
/// Reading is incremental and bounded: bytes may come in any chunks (the same events whatever the
/// cuts, which the fuzz target checks), a frame's payload is never held beyond the message it
/// belongs to, and a message longer than `maxMessageSize` is counted and dropped as it arrives
/// (`.oversized`), never held. A frame no server may send (a masked frame, reserved bits without
/// an extension, an unknown opcode, a fragmented or long control frame, a continuation with no
/// message, a length over 2^63, a close with a bad code or reason) is `.violation`: the
/// connection must be closed (1002, or 1007 for a close reason that is not UTF-8), and nothing
/// after it is read. A text message that is not UTF-8 is `.invalidText`: RFC 6455 allows closing
/// for it, and a feed can skip it (a skipped item) and go on.
package struct WebSocketFraming: Sendable {
    /// What the server's bytes carried, in order.
    package enum Event: Equatable, Sendable {
        /// A whole text message, its UTF-8 checked.
        case text([UInt8])
        case binary([UInt8])
        /// To be answered with a pong carrying the same payload.
        case ping([UInt8])
        case pong([UInt8])
        /// The server's close: its code (none when it gave none) and reason.
        case close(code: UInt16?, reason: String)
        /// A text message that is not UTF-8, of this many bytes.
        case invalidText(Int)
        /// A message longer than the limit: this many bytes (saturating), dropped.
        case oversized(Int)
        /// The server broke the protocol: the connection is to be closed with `code`.
        case violation(code: UInt16, String)
    }

    package enum Opcode: UInt8, Sendable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// The longest message kept (`--max-size`).
    package let maxMessageSize: Int

    /// The frame header being read (at most 14 bytes).
    private var header: [UInt8] = []
    /// The payload bytes of the current frame still to come.
    private var remaining = 0
    /// The current frame's opcode, while its payload is read.
    private var frameOpcode = Opcode.continuation
    private var frameIsFinal = false
    /// A control frame's payload (at most 125 bytes).
    private var control: [UInt8] = []
    /// The message being joined from its fragments: its opcode, bytes, and size (which goes on
    /// counting once it is over the limit and its bytes are dropped).
    private var message: (opcode: Opcode, bytes: [UInt8], size: Int)?
    /// A violation was met: nothing more is read.
    private var failed = false

    package init(maxMessageSize: Int) {
        self.maxMessageSize = max(0, maxMessageSize)
    }

    /// Reads `bytes`, the next ones of the connection; the events they complete.
    package mutating func parse(_ bytes: some Collection<UInt8>) -> [Event] {
        var events: [Event] = []
        var index = bytes.startIndex
        while index != bytes.endIndex, !failed {
            if remaining == 0, !readingPayload {
                header.append(bytes[index])
                index = bytes.index(after: index)
                if let event = headerRead() { events.append(event) }
                continue
            }
            let count = min(remaining, bytes.distance(from: index, to: bytes.endIndex))
            let end = bytes.index(index, offsetBy: count)
            take(bytes[index..<end])
            remaining -= count
            index = end
            if remaining == 0, let event = frameEnded() { events.append(event) }
        }
        return events
    }

    /// Whether a frame's header is complete and its payload (maybe empty) is being read.
    private var readingPayload = false

    /// After each header byte: a violation, or nothing; a complete header starts the payload (and
    /// an empty payload ends the frame at once).
    private mutating func headerRead() -> Event? {
        guard header.count >= 2 else { return nil }
        let first = header[0]
        let second = header[1]
        if header.count == 2 {
            if first & 0x70 != 0 { return fail(1002, "a frame with reserved bits set (no extension was agreed)") }
            guard let opcode = Opcode(rawValue: first & 0x0F) else {
                return fail(1002, "a frame of unknown opcode \(first & 0x0F)")
            }
            if second & 0x80 != 0 { return fail(1002, "a masked frame (a server's frames are never masked)") }
            if opcode.isControl, first & 0x80 == 0 { return fail(1002, "a fragmented control frame") }
            if opcode.isControl, second & 0x7F > 125 { return fail(1002, "a control frame longer than 125 bytes") }
        }
        let lengthBytes =
            switch second & 0x7F {
            case 126: 2
            case 127: 8
            default: 0
            }
        guard header.count == 2 + lengthBytes else { return nil }
        var length: UInt64 = UInt64(second & 0x7F)
        if lengthBytes > 0 {
            length = header[2...].reduce(0) { $0 << 8 | UInt64($1) }
            if length >> 63 != 0 { return fail(1002, "a frame length over 2^63") }
        }
        let opcode = Opcode(rawValue: first & 0x0F) ?? .continuation
        header.removeAll(keepingCapacity: true)
        frameOpcode = opcode
        frameIsFinal = first & 0x80 != 0
        // Int is 64-bit here; a length past it is past any limit and counted as such.
        remaining = Int(exactly: length) ?? Int.max
        switch opcode {
        case .continuation:
            guard message != nil else { return fail(1002, "a continuation frame with no message begun") }
        case .text, .binary:
            guard message == nil else { return fail(1002, "a new message before the last one ended") }
            message = (opcode, [], 0)
            // A message in one frame (a huge one is, as a rule) takes its room at once: grown by
            // doubling, it held its old and new buffers together, half again its size. A length
            // past the limit takes none (its bytes are dropped as they come).
            if frameIsFinal, remaining <= maxMessageSize { message?.bytes.reserveCapacity(remaining) }
        case .close, .ping, .pong:
            control.removeAll(keepingCapacity: true)
        }
        readingPayload = true
        return remaining == 0 ? frameEnded() : nil
    }

    /// A part of the current frame's payload.
    private mutating func take(_ bytes: some Collection<UInt8>) {
        if frameOpcode.isControl {
            control.append(contentsOf: bytes)
            return
        }
        guard var current = message else { return }
        message = nil  // the bytes are appended in place, not copied
        let size = current.size.addingReportingOverflow(bytes.count)
        current.size = size.overflow ? Int.max : size.partialValue
        if current.size <= maxMessageSize {
            current.bytes.append(contentsOf: bytes)
        } else if !current.bytes.isEmpty {
            current.bytes = []  // over the limit: what was kept goes too
        }
        message = current
    }

    /// The end of a frame's payload: the event it completes, if any.
    private mutating func frameEnded() -> Event? {
        readingPayload = false
        switch frameOpcode {
        case .ping: return .ping(control)
        case .pong: return .pong(control)
        case .close: return closeEvent()
        case .continuation, .text, .binary:
            guard frameIsFinal, let current = message else { return nil }
            message = nil
            if current.size > maxMessageSize { return .oversized(current.size) }
            if current.opcode == .binary { return .binary(current.bytes) }
            let valid = current.bytes.withUnsafeBytes(UTF8Check.isValid)
            return valid ? .text(current.bytes) : .invalidText(current.size)
        }
    }

    /// A close frame's payload read: its code and reason, or a violation.
    private mutating func closeEvent() -> Event {
        guard !control.isEmpty else { return .close(code: nil, reason: "") }
        guard control.count >= 2 else { return fail(1002, "a close frame with a one-byte code") }
        let code = UInt16(control[0]) << 8 | UInt16(control[1])
        guard Self.isValidCloseCode(code) else {
            return fail(1002, "a close frame with code \(code), which no endpoint may send")
        }
        guard let reason = String(validating: control[2...], as: UTF8.self) else {
            return fail(1007, "a close frame whose reason is not UTF-8")
        }
        return .close(code: code, reason: reason)
    }

    /// Codes an endpoint may send in a close frame (RFC 6455 §7.4, and the registry's 1012-1014).
    package static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    private mutating func fail(_ code: UInt16, _ why: String) -> Event {
        failed = true
        return .violation(code: code, why)
    }

    // MARK: the client's frames

    /// One whole frame of the client's, masked with `mask` (four bytes the caller draws from a
    /// strong random source for each frame, as RFC 6455 §5.3 asks).
    package static func clientFrame(_ opcode: Opcode, payload: some Collection<UInt8>, mask: [UInt8]) -> [UInt8] {
        precondition(mask.count == 4, "a masking key is four bytes")
        var frame: [UInt8] = [0x80 | opcode.rawValue]
        frame.reserveCapacity(payload.count + 14)
        switch payload.count {
        case ..<126:
            frame.append(0x80 | UInt8(payload.count))
        case ..<65_536:
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> (8 * UInt64($0))) }
        }
        frame += mask
        for (offset, byte) in payload.enumerated() { frame.append(byte ^ mask[offset & 3]) }
        return frame
    }

    /// The client's close frame: `code` and a reason cut to what a control frame holds.
    package static func closeFrame(code: UInt16, reason: String, mask: [UInt8]) -> [UInt8] {
        var reasonBytes = Array(reason.utf8.prefix(123))
        // Cut between characters, never inside one.
        while String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
        return clientFrame(.close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + reasonBytes, mask: mask)
    }
}
