import FoundationEssentials
import Synchronization

/// A value behind a lock, shareable across threads: the per-subscription state of `scan`, a
/// walk's outcome while it runs, a test's recorder.
public final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    public init(_ initial: Value) { storage = Mutex(initial) }

    /// Runs `body` with the value, exclusively; what it returns is returned.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try storage.withLock { value in try body(&value) }
    }

    /// Replaces the value with `transform(value)` and returns the new value.
    public func update(_ transform: (Value) -> Value) -> Value {
        storage.withLock { value in
            value = transform(value)
            return value
        }
    }

    public var value: Value { storage.withLock { $0 } }
}
