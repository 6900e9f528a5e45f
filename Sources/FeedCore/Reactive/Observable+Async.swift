extension Observable {
    /// The elements as an async sequence, for `for try await` in async code.
    ///
    /// Iterating subscribes (once per call of `values`); the stream buffers elements the consumer
    /// has not read yet. Ending the iteration early, or cancelling the iterating task, disposes the
    /// subscription, so cancellation reaches the producer (an HTTP transfer is aborted).
    public var values: AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let subscription = subscribe { event in
                switch event {
                case .next(let element): continuation.yield(element)
                case .failed(let error): continuation.finish(throwing: error)
                case .completed: continuation.finish()
                }
            }
            continuation.onTermination = { _ in subscription.dispose() }
        }
    }
}
