import FoundationEssentials
import Synchronization

/// A hot multicast source: what is sent to it reaches every current subscriber, in subscription
/// order, on the sending thread. Late subscribers see only later events; after a terminal event,
/// new subscribers get that terminal event at once. Senders must not send concurrently.
public final class Subject<Element: Sendable>: Sendable {
    private struct State: ~Copyable {
        var observers: [Int: Observer<Element>] = [:]
        var nextKey = 0
        var terminal: Event<Element>?
    }
    private let state = Mutex(State())

    public init() {}

    public func send(_ event: Event<Element>) {
        let receivers = state.withLock { state -> [Observer<Element>] in
            guard state.terminal == nil else { return [] }
            let receivers = state.observers.sorted { $0.key < $1.key }.map(\.value)
            if event.isTerminal {
                state.terminal = event
                state.observers = [:]
            }
            return receivers
        }
        for receiver in receivers { receiver.send(event) }
    }

    public var observable: Observable<Element> {
        Observable { [self] observer in
            let outcome = state.withLock { state -> Result<Int, TerminalBox> in
                if let terminal = state.terminal { return .failure(TerminalBox(event: terminal)) }
                defer { state.nextKey += 1 }
                state.observers[state.nextKey] = observer
                return .success(state.nextKey)
            }
            switch outcome {
            case .failure(let box):
                observer.send(box.event)
                return Disposables.empty
            case .success(let key):
                return Disposables.create { [self] in
                    _ = state.withLock { $0.observers.removeValue(forKey: key) }
                }
            }
        }
    }

    private struct TerminalBox: Error {
        let event: Event<Element>
    }
}
