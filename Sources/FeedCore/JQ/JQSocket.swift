import FoundationEssentials
import Glibc

/// Frames (`JQWire`) over the socket between feedcli and a jq worker: blocking in the worker,
/// with a deadline in feedcli. Sends use `MSG_NOSIGNAL`, so a peer that is gone is an error to
/// handle, never a SIGPIPE (a test process does not ignore it as feedcli does).
package enum JQSocket {
    package enum Failure: Error, Equatable {
        /// The deadline passed.
        case timedOut
        /// The peer closed the socket, or it failed.
        case closed
        /// A frame longer than `JQWire.frameLimit`, or a length that cannot be.
        case malformed
    }

    /// One frame from `descriptor`; nil at the end of the stream or on any failure. For the
    /// worker, which waits as long as feedcli keeps it.
    package static func readFrame(_ descriptor: Int32) -> [UInt8]? {
        try? readFrame(descriptor, deadline: nil)
    }

    /// Writes one frame to `descriptor`; false when the peer is gone.
    package static func writeFrame(_ body: [UInt8], to descriptor: Int32) -> Bool {
        (try? writeFrame(body, to: descriptor, deadline: nil)) != nil
    }

    /// One frame, waiting until `deadline` (nil: for ever).
    package static func readFrame(_ descriptor: Int32, deadline: ContinuousClock.Instant?) throws(Failure) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 4)
        try receive(into: &header, from: descriptor, deadline: deadline)
        let length = header.enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard length <= JQWire.frameLimit else { throw .malformed }
        var body = [UInt8](repeating: 0, count: length)
        try receive(into: &body, from: descriptor, deadline: deadline)
        return body
    }

    /// Writes one frame, waiting until `deadline` (nil: for ever) for room.
    package static func writeFrame(_ body: [UInt8], to descriptor: Int32, deadline: ContinuousClock.Instant?)
        throws(Failure)
    {
        guard body.count <= JQWire.frameLimit else { throw .malformed }
        let length = UInt32(body.count)
        let header = (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) }
        try send(header, to: descriptor, deadline: deadline)
        try send(body, to: descriptor, deadline: deadline)
    }

    private static func send(_ bytes: [UInt8], to descriptor: Int32, deadline: ContinuousClock.Instant?) throws(Failure)
    {
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int16(POLLOUT), on: descriptor, deadline: deadline)
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(
                    descriptor, buffer.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .closed
            }
            offset += sent
        }
    }

    private static func receive(into buffer: inout [UInt8], from descriptor: Int32, deadline: ContinuousClock.Instant?)
        throws(Failure)
    {
        var offset = 0
        let count = buffer.count
        while offset < count {
            try wait(for: Int16(POLLIN), on: descriptor, deadline: deadline)
            let received = buffer.withUnsafeMutableBytes { bytes in
                recv(descriptor, bytes.baseAddress! + offset, count - offset, Int32(MSG_DONTWAIT))
            }
            if received < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .closed
            }
            guard received > 0 else { throw .closed }
            offset += received
        }
    }

    /// Waits until `descriptor` is ready for `events` (or has failed or closed: the next call
    /// says which), or `deadline` passes.
    private static func wait(for events: Int16, on descriptor: Int32, deadline: ContinuousClock.Instant?)
        throws(Failure)
    {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { throw .timedOut }
                let (seconds, attoseconds) = left.components
                milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .closed }
        }
    }
}
