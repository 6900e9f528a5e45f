import FeedReactive
import Foundation
import Synchronization

/// Collects the events of one subscription for assertions, and can wait for the terminal one.
public final class Recorder<Element: Sendable>: Sendable {
    private let events = Mutex<[Event<Element>]>([])
    private let done = TestSignal()

    public init() {}

    public var handler: @Sendable (Event<Element>) -> Void {
        { [self] event in
            events.withLock { $0.append(event) }
            if event.isTerminal { done.signal() }
        }
    }

    public var elements: [Element] {
        events.withLock { $0.compactMap { if case .next(let e) = $0 { e } else { nil } } }
    }
    public var error: (any Error)? {
        events.withLock { $0.compactMap { if case .failed(let e) = $0 { e } else { nil } }.first }
    }
    public var isCompleted: Bool {
        events.withLock { $0.contains { if case .completed = $0 { true } else { false } } }
    }
    public var isTerminated: Bool { events.withLock { $0.last?.isTerminal ?? false } }
    public var terminalCount: Int { events.withLock { $0.filter(\.isTerminal).count } }

    /// Awaits the terminal event; false if it did not come within `seconds`.
    @discardableResult
    public func wait(seconds: Double = 10) async -> Bool {
        if isTerminated { return true }
        let result = await done.wait(seconds: seconds)
        if result { done.signal() }
        return result
    }
}

public struct TestError: Error, Equatable {
    public var id = 0

    public init(id: Int = 0) { self.id = id }
}
