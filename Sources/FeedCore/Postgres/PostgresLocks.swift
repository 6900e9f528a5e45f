import FeedBase
import FeedModel
import FeedStoreContract

/// Advisory locks: the PostgreSQL store's `FeedLock`, held across machines.
///
/// A feed's lock is a session-level advisory lock keyed by (`feedClass`, `hashtext(name)`): held
/// by the run's connection until released, and released by the server when the connection ends
/// however it ends (a killed run, a lost network), so it never goes stale. Two feeds whose names
/// hash alike share a lock: they only wait for each other. Migrations take a transaction-level
/// lock of `storeClass`.
package enum PostgresLocks {
    /// "FEED", "FEEE" and "FEEF": the lock spaces of the store's migrations, of its feeds, and
    /// of its feeds' owners (a `follow` owns the feeds it follows for its session).
    package static let storeClass: Int32 = 0x4645_4544
    package static let feedClass: Int32 = 0x4645_4545
    package static let ownerClass: Int32 = 0x4645_4546
}

/// A feed's advisory lock, released when let go (a statement on the store's connection; when
/// the connection is gone, the server has released it already).
final class PostgresFeedLock: HeldFeedLock {
    private let release: @Sendable () -> Void

    init(release: @escaping @Sendable () -> Void) {
        self.release = release
    }

    deinit { release() }
}
