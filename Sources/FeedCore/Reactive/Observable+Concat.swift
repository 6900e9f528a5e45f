import FoundationEssentials
import Synchronization

extension Observable {
    /// Subscribes to each observable only after the previous one completed; fails with the first
    /// failure. Elements keep the order of the list.
    ///
    /// Its own small operator rather than `from(observables).flatMap(.concat)`: a feed's sync
    /// chains a handful of these (a record before the work, a request's step before its page),
    /// and `flatMap`'s machinery for any number of inners at once (a queue, a set of running
    /// inners, a recursive lock) is a share of a quiet feed's sync that this does without.
    ///
    /// Threading: as `flatMap(.concat)`; the next observable is subscribed on the thread where
    /// the previous one completed, and synchronous ones are started by a loop, not by
    /// recursion, so a long list of them does not grow the stack.
    public static func concat(_ observables: [Observable]) -> Observable {
        switch observables.count {
        case 0: return .empty()
        case 1: return observables[0]
        default:
            return Observable { observer in
                let chain = ConcatChain(observables, downstream: observer)
                chain.advance()
                return chain
            }
        }
    }
}

/// One subscription of `concat`: which observable runs, and the loop that starts the next.
//
// @unchecked Sendable: `next`, `isAdvancing`, `completedMeanwhile` and `isStopped` are read and
// written only inside `lock.withLock`. The lock is a `Mutex<Void>` beside plain properties, as
// in `Subscription`: a mutex of a struct nested in this generic class would look up its
// metadata at run time.
private final class ConcatChain<Element: Sendable>: Disposable, @unchecked Sendable {
    private let observables: [Observable<Element>]
    private let downstream: Observer<Element>
    private let current = SerialDisposable()
    private let lock = Mutex(())
    @exclusivity(unchecked) private var next = 0
    @exclusivity(unchecked) private var isAdvancing = false
    @exclusivity(unchecked) private var completedMeanwhile = false
    @exclusivity(unchecked) private var isStopped = false
    private static var stop: Int { -1 }
    private static var finish: Int { -2 }

    init(_ observables: [Observable<Element>], downstream: Observer<Element>) {
        self.observables = observables
        self.downstream = downstream
    }

    /// Subscribes to the next observable, or completes after the last. Called at the start and
    /// when an observable completes; a completion that arrives while another call is in the
    /// loop (a synchronous observable, or one completing on another thread meanwhile) leaves
    /// the next start to that loop.
    func advance() {
        let enters = lock.withLock { _ -> Bool in
            if isAdvancing {
                completedMeanwhile = true
                return false
            }
            isAdvancing = true
            return true
        }
        guard enters else { return }
        while true {
            // The index to start, or `finish` after the last, or `stop` once stopped (an index
            // rather than an enum: a type nested here would be generic too).
            let index = lock.withLock { _ -> Int in
                if isStopped { return Self.stop }
                guard next < observables.count else { return Self.finish }
                defer { next += 1 }
                return next
            }
            if index == Self.stop { return }
            if index == Self.finish {
                if stopsFirst() { downstream.complete() }
                return
            }
            current.replace(
                with: observables[index].subscribe { [self] (event: Event<Element>) in
                    switch event {
                    case .next(let element): downstream.next(element)
                    case .failed(let error): stop(with: error)
                    case .completed: advance()
                    }
                })
            let goesOn = lock.withLock { _ -> Bool in
                if completedMeanwhile {
                    completedMeanwhile = false
                    return true
                }
                isAdvancing = false
                return false
            }
            guard goesOn else { return }
        }
    }

    /// Stops the chain; true for the call that stopped it (the one that may end the sequence).
    private func stopsFirst() -> Bool {
        lock.withLock { _ -> Bool in
            defer { isStopped = true }
            return !isStopped
        }
    }

    private func stop(with error: any Error) {
        guard stopsFirst() else { return }
        downstream.fail(error)
        current.dispose()
    }

    func dispose() {
        lock.withLock { _ in isStopped = true }
        current.dispose()
    }
}
