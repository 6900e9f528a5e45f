import FoundationEssentials

extension Observable {
    /// Emits `element` then completes, synchronously on subscription.
    public static func just(_ element: Element) -> Observable {
        from([element])
    }

    /// Emits each element of `elements` in order, then completes, synchronously on subscription.
    /// (Elements sent after the subscriber disposed are dropped by the subscription.)
    public static func from(_ elements: [Element]) -> Observable {
        Observable { observer in
            for element in elements { observer.next(element) }
            observer.complete()
            return Disposables.empty
        }
    }

    /// Completes at once without elements.
    public static func empty() -> Observable {
        Observable { observer in
            observer.complete()
            return Disposables.empty
        }
    }

    /// Fails at once with `error`.
    public static func fail(_ error: any Error) -> Observable {
        Observable { observer in
            observer.fail(error)
            return Disposables.empty
        }
    }

    /// Builds the observable at subscription time, so it sees the world as it is then (the latest
    /// state, the current time) rather than when the pipeline was assembled. A thrown error becomes
    /// the sequence's failure.
    public static func deferred(_ factory: @escaping @Sendable () throws -> Observable) -> Observable {
        Observable { observer in
            do {
                return try factory().subscribe(observer.send)
            } catch {
                observer.fail(error)
                return Disposables.empty
            }
        }
    }
}
