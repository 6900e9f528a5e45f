import FoundationEssentials
import Glibc

/// A lock that the thread holding it may take again (a pthread recursive mutex).
///
/// For emitters that may be re-entered from the events they send: an observer that reacts to
/// an event by starting more work on the same thread must not deadlock.
///
/// @unchecked Sendable invariant: the mutex lives at a fixed heap address for the lock's whole
/// life (allocated in `init`, destroyed in `deinit`), and pthread mutexes are made to be shared
/// between threads.
package final class RecursiveLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }

    package func unlock() { pthread_mutex_unlock(mutex) }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
