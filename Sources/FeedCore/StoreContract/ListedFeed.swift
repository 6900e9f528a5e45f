import FeedModel

/// A feed's record as a listing of the store read it, with the store's version at that moment.
///
/// A sync of every feed lists them, then takes each feed's lock and needs its record as it is
/// once the lock is held (another run may have fetched the feed in between). Reading 1,000
/// records twice was a tenth of a quiet sync's work; with the version, the second read is a
/// check that nothing was committed since (SQLite's `PRAGMA data_version`), and the record is
/// read again only when something was.
public struct ListedFeed: Sendable {
    public var record: FeedRecord
    /// The store's version when the listing was read; nil when the store cannot tell (the
    /// record is then always read again).
    package var version: Int64?

    package init(record: FeedRecord, version: Int64?) {
        self.record = record
        self.version = version
    }
}
