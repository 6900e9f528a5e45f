import CustomDump
import FeedBase
import FeedModel
import FeedReactive
import FeedHTTP
import FeedJQ
import FeedKinds
import FeedStore
import FeedReactor
import FeedRendering
import FeedTerminal
import FeedCore
import Testing

/// Exhaustive reducer assertions in the manner of TCA's `TestStore`: each step sends one mutation
/// and states, as a mutation of the previous state, every change it expects. Any difference,
/// expected or not, fails with a readable diff (− expected, + actual).
struct ReducerTester<R: Reactor> where R.State: Equatable {
    let reactor: R
    private(set) var state: R.State

    init(_ reactor: R, state: R.State? = nil) {
        self.reactor = reactor
        self.state = state ?? reactor.initialState
    }

    mutating func send(
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
}
