import FeedStoreContract
import FoundationEssentials
import Synchronization

/// A `SQLiteConnection` shared between threads: one caller at a time uses it.
///
/// @unchecked Sendable invariant: `connection` (and every statement it caches) is touched only
/// inside `withConnection`, which holds `lock` for the whole call; nothing from the connection
/// escapes the call (results are values copied out of the rows).
package final class SQLiteDatabase: @unchecked Sendable {
    private let lock = Mutex(())
    private let connection: SQLiteConnection

    package init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Runs `body` with the connection, excluding every other thread meanwhile. Not reentrant:
    /// `body` must not call back into the store.
    package func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try lock.withLock { _ in try body(connection) }
    }
}
