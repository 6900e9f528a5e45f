import FoundationEssentials
import Synchronization

extension Observable {
    /// The source's events until `trigger` emits anything or ends; then the source is disposed
    /// and the result completes (a graceful end, not a failure: a stream told to stop hands on
    /// what it holds first, through the operators after this one).
    ///
    /// A trigger that already fired (a `Subject` that completed) ends the result at once, before
    /// the source is subscribed.
    public func take<Trigger: Sendable>(until trigger: Observable<Trigger>) -> Observable {
        Observable { observer in
            let source = SerialDisposable()
            let ended = Mutex(false)
            let end = { @Sendable () -> Bool in
                ended.withLock { ended in
                    defer { ended = true }
                    return !ended
                }
            }
            let watch = trigger.subscribe { _ in
                guard end() else { return }
                source.dispose()
                observer.complete()
            }
            guard !ended.withLock({ $0 }) else { return watch }
            source.replace(
                with: self.subscribe { event in
                    if event.isTerminal {
                        guard end() else { return }
                        watch.dispose()
                    }
                    observer.send(event)
                })
            return Disposables.create {
                watch.dispose()
                source.dispose()
            }
        }
    }
}
