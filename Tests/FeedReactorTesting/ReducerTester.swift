import CustomDump
import FeedBase
import FeedReactor
import FeedStore
import FeedStoreContract
import FeedTesting
import Testing

/// Exhaustive reducer assertions in the manner of TCA's `TestStore`: each step sends one mutation
/// and states, as a mutation of the previous state, every change it expects. Any difference,
/// expected or not, fails with a readable diff (− expected, + actual).
///
/// `send(action:)` runs the reactor's `mutate` for an action and keeps the mutations it produced;
/// each `receive` then takes the next of them, says which one it expects, and what it changes
/// (TCA's `receive` of an effect's actions). `finish()` fails when any is left unreceived.
public struct ReducerTester<R: Reactor> where R.State: Equatable, R.Mutation: Equatable {
    public let reactor: R
    public private(set) var state: R.State
    /// Mutations the last `send(action:)` produced that no `receive` has taken yet.
    public private(set) var produced: [R.Mutation] = []

    public init(_ reactor: R, state: R.State? = nil) {
        self.reactor = reactor
        self.state = state ?? reactor.initialState
    }

    public mutating func send(
        _ mutation: R.Mutation, sourceLocation: SourceLocation = #_sourceLocation,
        _ expectedChanges: (inout R.State) -> Void = { _ in }
    ) {
        var expected = state
        expectedChanges(&expected)
        var actual = state
        reactor.reduce(state: &actual, mutation: mutation)
        if let difference = diff(expected, actual, format: .proportional) {
            Issue.record(
                """
                The state after \(String(describing: mutation).prefix(120)) is not what the test expected. \
                Add the missing changes to the closure, or fix reduce (− expected, + actual):
                \(difference)
                """, sourceLocation: sourceLocation)
        }
        state = actual
    }

    /// Runs `mutate` for `action` to its end and keeps what it produced for `receive`; an error
    /// becomes the reactor's failure mutation, as `ReactorHost` makes it. The environment must
    /// run synchronously (`FeedEnvironment.test`) or finish within `timeout`.
    public mutating func send(
        action: R.Action, timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        if !produced.isEmpty {
            Issue.record(
                "Sent an action while \(produced.count) mutations of the one before were not received: \(produced)",
                sourceLocation: sourceLocation)
        }
        let collected = Locked<[R.Mutation]>([])
        let finished = TestSignal()
        let reactor = self.reactor
        let subscription = reactor.mutate(action: action)
            .catch { error in .just(reactor.mutation(for: error, action: action)) }
            .subscribe { event in
                switch event {
                case .next(let mutation): collected.withLock { $0.append(mutation) }
                case .failed, .completed: finished.signal()
                }
            }
        if await !finished.wait(seconds: Double(timeout.components.seconds)) {
            Issue.record("mutate(\(action)) did not finish within \(timeout)", sourceLocation: sourceLocation)
        }
        subscription.dispose()
        produced = collected.value
    }

    /// Takes the next mutation the last action produced: it must be `expected`, and reducing it
    /// must change the state exactly as `expectedChanges` says.
    public mutating func receive(
        _ expected: R.Mutation, sourceLocation: SourceLocation = #_sourceLocation,
        _ expectedChanges: (inout R.State) -> Void = { _ in }
    ) {
        guard !produced.isEmpty else {
            Issue.record(
                "Expected to receive \(String(describing: expected).prefix(120)), but the action produced no more mutations.",
                sourceLocation: sourceLocation)
            return
        }
        let mutation = produced.removeFirst()
        if let difference = diff(expected, mutation, format: .proportional) {
            Issue.record(
                """
                The action's next mutation is not the one the test expected (− expected, + received):
                \(difference)
                """, sourceLocation: sourceLocation)
        }
        send(mutation, sourceLocation: sourceLocation, expectedChanges)
    }

    /// Fails when mutations of the last action were not received: every one must be asserted.
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        guard !produced.isEmpty else { return }
        Issue.record(
            """
            \(produced.count) mutations were not received; receive each, in order:
            \(produced.map { "  " + String(describing: $0).prefix(160) }.joined(separator: "\n"))
            """, sourceLocation: sourceLocation)
    }
}
