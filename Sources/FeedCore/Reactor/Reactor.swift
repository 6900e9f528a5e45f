import FeedReactive
import FoundationEssentials

/// A reactor turns what the user asked for into state, in the manner of ReactorKit:
///
///     Action ──mutate──▶ Mutation* ──reduce──▶ State
///
/// - `mutate(action:)` is the only place with effects (network, disk). It returns a cold
///   observable of mutations; a failure in it becomes state through `mutation(for:action:)`, never
///   a crash and never silence.
/// - `reduce(state:mutation:)` is pure and synchronous: same input, same output, no effects. It
///   changes the state in place (`inout`, as in TCA): the host keeps the only copy, so a state
///   with thousands of feeds is not copied for every mutation.
/// - The `transform` hooks rewrite whole streams, as in ReactorKit: `transform(action:)` the stream
///   of sent actions (to map, expand, drop or merge in actions), `transform(mutation:)` the stream
///   of all mutations, `transform(state:)` the stream of states (for observers such as a progress
///   line). Each is applied once, for the host's life, and defaults to identity.
///
/// A `ReactorHost` runs a reactor: one action at a time, in order (see there for threading).
public protocol Reactor: Sendable {
    associatedtype Action: Sendable
    associatedtype Mutation: Sendable
    associatedtype State: Sendable

    var initialState: State { get }

    func mutate(action: Action) -> Observable<Mutation>
    func reduce(state: inout State, mutation: Mutation)

    /// The mutation that records `error`, raised while processing `action`, as state.
    func mutation(for error: any Error, action: Action) -> Mutation

    func transform(action: Observable<Action>) -> Observable<Action>
    func transform(mutation: Observable<Mutation>) -> Observable<Mutation>
    func transform(state: Observable<State>) -> Observable<State>
}

extension Reactor {
    public func transform(action: Observable<Action>) -> Observable<Action> { action }
    public func transform(mutation: Observable<Mutation>) -> Observable<Mutation> { mutation }
    public func transform(state: Observable<State>) -> Observable<State> { state }
}
