import FeedBase
import FoundationEssentials

extension Observable {
    /// Transforms each element. A thrown error fails the sequence and disposes the source.
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Element) throws -> T) -> Observable<T> {
        compactMap(transform)
    }

    /// Transforms each element and drops the `nil` results. A thrown error fails the sequence and
    /// disposes the source.
    public func compactMap<T: Sendable>(
        _ transform: @escaping @Sendable (Element) throws -> T?
    ) -> Observable<T> {
        Observable<T> { observer in
            let source = SerialDisposable()
            source.replace(
                with: self.subscribe { event in
                    switch event {
                    case .next(let element):
                        do {
                            if let mapped = try transform(element) { observer.next(mapped) }
                        } catch {
                            observer.fail(error)
                            source.dispose()
                        }
                    case .failed(let error): observer.fail(error)
                    case .completed: observer.complete()
                    }
                })
            return source
        }
    }

    /// Passes on the elements for which `isIncluded` is true.
    public func filter(_ isIncluded: @escaping @Sendable (Element) -> Bool) -> Observable {
        compactMap { isIncluded($0) ? $0 : nil }
    }

    /// Emits the running accumulation: `accumulate(seed, e1)`, then `accumulate(that, e2)`, … One
    /// accumulator per subscription, so resubscribing starts again from `seed`.
    public func scan<Result: Sendable>(
        _ seed: Result,
        _ accumulate: @escaping @Sendable (Result, Element) -> Result
    ) -> Observable<Result> {
        Observable<Result> { observer in
            let accumulator = Locked(seed)
            return self.subscribe { event in
                switch event {
                case .next(let element): observer.next(accumulator.update { accumulate($0, element) })
                case .failed(let error): observer.fail(error)
                case .completed: observer.complete()
                }
            }
        }
    }

    /// Side effects at each point of a subscription's life, for logging and progress. The hooks
    /// run before the event is passed on; `onSubscribe` runs before the source is subscribed, and
    /// `onDispose` once when the subscription ends, by a terminal event or by disposal.
    public func handleEvents(
        onSubscribe: (@Sendable () -> Void)? = nil,
        onNext: (@Sendable (Element) -> Void)? = nil,
        onFailed: (@Sendable (any Error) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Observable {
        Observable { observer in
            onSubscribe?()
            let source = self.subscribe { event in
                switch event {
                case .next(let element): onNext?(element)
                case .failed(let error): onFailed?(error)
                case .completed: onCompleted?()
                }
                observer.send(event)
            }
            return Disposables.create {
                onDispose?()
                source.dispose()
            }
        }
    }
}

extension Observable {
    /// Collects every element and emits them as one array when the source completes (an empty
    /// array for an empty source). Fails, without emitting, if the source fails.
    public func toArray() -> Observable<[Element]> {
        Observable<[Element]> { observer in
            let collected = Locked<[Element]>([])
            return self.subscribe { event in
                switch event {
                case .next(let element): collected.withLock { $0.append(element) }
                case .failed(let error): observer.fail(error)
                case .completed:
                    observer.next(collected.value)
                    observer.complete()
                }
            }
        }
    }
}
