import FeedBase
import FeedReactive
import FeedReactor

/// The feed reactor with every mutation it produces recorded, in order (`transform(mutation:)`),
/// for tests that assert the sequence.
struct RecordingReactor: Reactor {
    let base: FeedReactor
    let mutations: Locked<[FeedMutation]>
    var initialState: FeedReactorState { base.initialState }
    func mutate(action: FeedAction) -> Observable<FeedMutation> { base.mutate(action: action) }
    func reduce(state: inout FeedReactorState, mutation: FeedMutation) { base.reduce(state: &state, mutation: mutation) }
    func mutation(for error: any Error, action: FeedAction) -> FeedMutation { base.mutation(for: error, action: action) }
    func transform(mutation: Observable<FeedMutation>) -> Observable<FeedMutation> {
        mutation.handleEvents(onNext: { [mutations] mutation in mutations.withLock { $0.append(mutation) } })
    }
}
