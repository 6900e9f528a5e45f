/// What watches a run's states as they happen: the progress line on a terminal. The reactor
/// calls it from its state stream (`FeedReactor.transform(state:)`), on whichever thread produced
/// the state, one state at a time and in order.
public protocol RunProgress: Sendable {
    /// A new state of the run.
    func update(_ state: FeedReactorState)
    /// The run ended (completed or failed): nothing of it may stay on screen.
    func clear()
}
