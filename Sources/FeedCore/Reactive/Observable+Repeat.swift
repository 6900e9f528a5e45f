import FeedBase

extension Observable {
    /// Runs `round()` again and again: each time one completes, `pause()` says how long to wait
    /// before the next (nil: no more rounds, and the whole completes). Every round's elements are
    /// passed on; a round's failure fails the whole. Rounds never overlap. Once `until` fires, no
    /// round starts: a wait ends at once (and the whole completes), a running round runs to its
    /// own end (it is told by other means, if it should end early).
    ///
    /// Rounds are chained without nesting: the next round is subscribed from the scheduler's
    /// callback and the finished one is let go, so a feed polled every minute for a month holds
    /// one subscription, not forty thousand forwarding into each other.
    ///
    /// Threading: the first round is subscribed on the subscribing thread, later ones on
    /// `scheduler`'s. Disposing cancels the wait or the running round.
    ///
    /// `firstPause`: a wait before the first round as well (nil or zero: it starts at once).
    public static func repeating(
        _ round: @escaping @Sendable () -> Observable<Element>,
        pause: @escaping @Sendable () -> Duration?,
        scheduler: any Scheduler,
        until: Observable<Void>,
        firstPause: Duration? = nil
    ) -> Observable<Element> {
        Observable { observer in
            // Two slots: a round that completes while it is being subscribed sets its wait before
            // its own subscription is stored, and that store must not cancel the wait.
            let current = SerialDisposable()
            let wait = SerialDisposable()
            // Whether `until` fired, and whether a round is running (else: waiting).
            let phase = Locked((ended: false, running: false))
            @Sendable func next() {
                let starts = phase.withLock { phase in
                    phase.running = !phase.ended
                    return phase.running
                }
                guard starts else { return observer.complete() }
                current.replace(
                    with: round().subscribe { event in
                        switch event {
                        case .next(let element):
                            observer.next(element)
                        case .failed(let error):
                            observer.fail(error)
                        case .completed:
                            let ended = phase.withLock { phase in
                                phase.running = false
                                return phase.ended
                            }
                            guard !ended, let pause = pause() else { return observer.complete() }
                            wait.replace(with: scheduler.schedule(after: pause) { next() })
                        }
                    })
            }
            let stop = until.subscribe { _ in
                let waiting = phase.withLock { phase in
                    defer { phase.ended = true }
                    return !phase.ended && !phase.running
                }
                guard waiting else { return }
                wait.dispose()
                observer.complete()
            }
            if let firstPause, firstPause > .zero {
                wait.replace(with: scheduler.schedule(after: firstPause) { next() })
            } else {
                next()
            }
            return Disposables.create {
                stop.dispose()
                current.dispose()
                wait.dispose()
            }
        }
    }
}
