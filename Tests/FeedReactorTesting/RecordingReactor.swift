import FeedBase
import FeedReactive
import FeedReactor

/// The feed reactor with every mutation it produces recorded, in order (`transform(mutation:)`),
/// for tests that assert the sequence.
public struct RecordingReactor: Reactor {
    public let base: FeedReactor
    public let mutations: Locked<[FeedMutation]>

    public init(base: FeedReactor, mutations: Locked<[FeedMutation]> = Locked([])) {
        self.base = base
        self.mutations = mutations
    }

    public var initialState: FeedReactorState { base.initialState }
    public func mutate(action: FeedAction) -> Observable<FeedMutation> { base.mutate(action: action) }
    public func reduce(state: inout FeedReactorState, mutation: FeedMutation) {
        base.reduce(state: &state, mutation: mutation)
    }
    public func mutation(for error: any Error, action: FeedAction) -> FeedMutation {
        base.mutation(for: error, action: action)
    }
    public func transform(mutation: Observable<FeedMutation>) -> Observable<FeedMutation> {
        mutation.handleEvents(onNext: { [mutations] mutation in mutations.withLock { $0.append(mutation) } })
    }
}
