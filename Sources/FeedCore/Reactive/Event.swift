import FoundationEssentials

/// One event of an observable sequence. A sequence follows the grammar `next* (failed | completed)?`:
/// any number of elements, then at most one terminal event, then nothing.
public enum Event<Element: Sendable>: Sendable {
    case next(Element)
    case failed(any Error)
    case completed

    public var isTerminal: Bool {
        if case .next = self { return false }
        return true
    }
}

/// The producer's side of a subscription: where a producer sends its events.
///
/// Producers must send events one at a time (never from two threads at once); the subscription
/// drops anything sent after a terminal event or after disposal.
public struct Observer<Element: Sendable>: Sendable {
    private let handler: @Sendable (Event<Element>) -> Void

    public init(_ handler: @escaping @Sendable (Event<Element>) -> Void) {
        self.handler = handler
    }

    public func send(_ event: Event<Element>) { handler(event) }
    public func next(_ element: Element) { handler(.next(element)) }
    public func fail(_ error: any Error) { handler(.failed(error)) }
    public func complete() { handler(.completed) }
}
