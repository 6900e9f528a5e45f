import FeedBase
import FoundationEssentials
import Synchronization

extension Observable {
    /// On failure, continues with the observable `handler` returns for the error. Elements already
    /// passed on stay passed on; the failed source is disposed before the replacement is
    /// subscribed. A thrown handler error fails the result.
    public func `catch`(_ handler: @escaping @Sendable (any Error) throws -> Observable) -> Observable {
        Observable { observer in
            // Two slots: a synchronous failure installs the replacement before `subscribe` has
            // returned the source's subscription, which must not then displace it.
            let source = SerialDisposable()
            let replacement = SerialDisposable()
            source.replace(
                with: self.subscribe { event in
                    guard case .failed(let error) = event else { return observer.send(event) }
                    do {
                        replacement.replace(with: try handler(error).subscribe(observer.send))
                    } catch {
                        observer.fail(error)
                    }
                })
            return Disposables.create {
                source.dispose()
                replacement.dispose()
            }
        }
    }

    /// On a failure that `policy` deems retryable, waits the policy's backoff on `scheduler` and
    /// subscribes to the source again (a cold source therefore redoes its work, e.g. resends the
    /// request). Elements from failed attempts have already been passed on. After
    /// `policy.maxRetries` retries, or on a failure the policy does not retry, fails with that
    /// error. `onRetry` is told of each retry before its wait (for logging).
    public func retry(
        _ policy: RetryPolicy,
        scheduler: any Scheduler,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        onRetry: (@Sendable (_ attempt: Int, _ delay: Duration, _ error: any Error) -> Void)? = nil
    ) -> Observable {
        Observable { observer in
            // Separate slots for the attempt and the wait: a synchronous failure schedules the wait
            // before `subscribe` has returned, and installing the attempt must not cancel it.
            let current = SerialDisposable()
            let wait = SerialDisposable()
            let attempts = Mutex(0)
            // Starting an attempt and disposing exclude each other, so no attempt starts after
            // `dispose()` returns (a wait that fires as the subscriber gives up sends nothing).
            // Recursive: an attempt's synchronous events may dispose from the same thread.
            let starting = RecursiveLock()
            @Sendable func attempt() {
                starting.lock()
                defer { starting.unlock() }
                guard !current.isDisposed else { return }
                current.replace(
                    with: self.subscribe { event in
                        guard case .failed(let error) = event else { return observer.send(event) }
                        let retry = attempts.withLock { count -> Int? in
                            guard count < policy.maxRetries, policy.shouldRetry(error) else { return nil }
                            count += 1
                            return count
                        }
                        guard let retry else { return observer.fail(error) }
                        let delay = policy.delay(beforeRetry: retry, error: error, random: random())
                        onRetry?(retry, delay, error)
                        wait.replace(with: scheduler.schedule(after: delay) { attempt() })
                    })
            }
            attempt()
            return Disposables.create {
                starting.lock()
                current.dispose()
                starting.unlock()
                wait.dispose()
            }
        }
    }
}
