import FoundationEssentials

/// A cold, push-based sequence of values over time.
///
/// Nothing happens until `subscribe`: each subscription runs the producer anew, so an
/// `Observable` describes work (an HTTP request, a paging walk) rather than holding its result.
/// Two subscriptions to one request observable send two requests.
///
/// Semantics every operator in this module keeps:
/// - Grammar: `next* (failed | completed)?`. Nothing is delivered after a terminal event or after
///   the subscription is disposed.
/// - Teardown: the `Disposable` the producer returns runs exactly once, when the sequence
///   terminates or the subscriber disposes, whichever comes first.
/// - Threading: events arrive on whatever thread the producer sends them from (the HTTP client's
///   worker thread, a scheduler's queue, or the subscribing thread for synchronous producers).
///   Operators never hop threads on their own; `subscribe` never blocks.
public struct Observable<Element: Sendable>: Sendable {
    public typealias Producer = @Sendable (Observer<Element>) -> any Disposable

    private let producer: Producer

    /// Wraps a producer. The producer runs once per subscription and returns its teardown.
    public init(_ producer: @escaping Producer) {
        self.producer = producer
    }

    /// Runs the producer for a new subscriber. The handler receives events per the grammar above;
    /// the returned disposable cancels the subscription and runs the producer's teardown.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (Event<Element>) -> Void) -> any Disposable {
        let subscription = Subscription(handler)
        subscription.attach(teardown: producer(subscription.observer))
        return subscription
    }

    /// Subscribes with one closure per kind of event.
    @discardableResult
    public func subscribe(
        onNext: @escaping @Sendable (Element) -> Void = { _ in },
        onFailed: @escaping @Sendable (any Error) -> Void = { _ in },
        onCompleted: @escaping @Sendable () -> Void = {}
    ) -> any Disposable {
        subscribe { event in
            switch event {
            case .next(let element): onNext(element)
            case .failed(let error): onFailed(error)
            case .completed: onCompleted()
            }
        }
    }
}
