import Synchronization

/// A value owned by one subscription and updated atomically; the per-subscription state of
/// `scan` and `distinctUntilChanged`.
final class Accumulator<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ initial: Value) { value = Mutex(initial) }

    /// Replaces the value with `transform(value)` and returns the new value.
    func update(_ transform: (Value) -> Value) -> Value {
        value.withLock { value in
            value = transform(value)
            return value
        }
    }

    var current: Value { value.withLock { $0 } }
}
