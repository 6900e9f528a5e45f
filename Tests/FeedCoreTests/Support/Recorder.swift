import FeedReactive
import FeedStore
import FeedReactor
import Foundation
import Synchronization

/// Collects the events of one subscription for assertions, and can wait for the terminal one.
final class Recorder<Element: Sendable>: Sendable {
    private let events = Mutex<[Event<Element>]>([])
    private let done = TestSignal()

    var handler: @Sendable (Event<Element>) -> Void {
        { [self] event in
            events.withLock { $0.append(event) }
            if event.isTerminal { done.signal() }
        }
    }

    var elements: [Element] {
        events.withLock { $0.compactMap { if case .next(let e) = $0 { e } else { nil } } }
    }
    var error: (any Error)? {
        events.withLock { $0.compactMap { if case .failed(let e) = $0 { e } else { nil } }.first }
    }
    var isCompleted: Bool {
        events.withLock { $0.contains { if case .completed = $0 { true } else { false } } }
    }
    var isTerminated: Bool { events.withLock { $0.last?.isTerminal ?? false } }
    var terminalCount: Int { events.withLock { $0.filter(\.isTerminal).count } }

    /// Awaits the terminal event; false if it did not come within `seconds`.
    @discardableResult
    func wait(seconds: Double = 10) async -> Bool {
        if isTerminated { return true }
        let result = await done.wait(seconds: seconds)
        if result { done.signal() }
        return result
    }
}

struct TestError: Error, Equatable {
    var id = 0
}
