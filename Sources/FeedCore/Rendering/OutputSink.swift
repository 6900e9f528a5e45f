import Foundation
import Synchronization

/// Where rendered bytes go: stdout, stderr, or a buffer in tests.
public protocol OutputSink: Sendable {
    func write(_ text: String)
    func write(bytes: [UInt8])
    /// Pushes out buffered bytes.
    func flush()
    /// True once the reader has gone away (a closed pipe): further output is dropped.
    var isClosed: Bool { get }
}

/// A buffered sink on a file descriptor. When the reader goes away (EPIPE, e.g. `| head`), it
/// stops writing quietly instead of dying on SIGPIPE.
public final class FileDescriptorSink: OutputSink {
    private struct Buffer: ~Copyable {
        var bytes: [UInt8] = []
        var isBroken = false
    }
    private let descriptor: Int32
    private let capacity: Int
    private let buffer = Mutex(Buffer())

    public init(descriptor: Int32, capacity: Int = 64 * 1024) {
        self.descriptor = descriptor
        self.capacity = capacity
    }

    public static let standardOutput = FileDescriptorSink(descriptor: STDOUT_FILENO)
    public static let standardError = FileDescriptorSink(descriptor: STDERR_FILENO, capacity: 0)

    public var isTerminal: Bool { isatty(descriptor) == 1 }

    public var isClosed: Bool { buffer.withLock { $0.isBroken } }

    public func write(_ text: String) { write(bytes: Array(text.utf8)) }

    public func write(bytes: [UInt8]) {
        buffer.withLock { buffer in
            buffer.bytes += bytes
            if buffer.bytes.count >= capacity { drain(&buffer) }
        }
    }

    public func flush() {
        buffer.withLock { drain(&$0) }
    }

    private func drain(_ buffer: inout Buffer) {
        defer { buffer.bytes.removeAll(keepingCapacity: true) }
        guard !buffer.isBroken else { return }
        var offset = 0
        while offset < buffer.bytes.count {
            let written = buffer.bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                buffer.isBroken = true
                return
            }
            offset += written
        }
    }
}

/// Collects output in memory, for tests.
public final class BufferSink: OutputSink {
    private let bytes = Mutex<[UInt8]>([])

    public init() {}

    public func write(_ text: String) { write(bytes: Array(text.utf8)) }
    public func write(bytes: [UInt8]) { self.bytes.withLock { $0 += bytes } }
    public func flush() {}
    public var isClosed: Bool { false }

    public var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}
