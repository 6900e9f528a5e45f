import FeedModel
import FoundationEssentials

/// A feed record's columns as either store writes them when it receives a copy: times in the
/// store's text form, `--every` in seconds. `created_at` is not part of a record; a copied feed is
/// registered at the copy.
package struct StoreCopyRow {
    package var retryNotBefore: String?
    package var lastFetchAt: String?
    package var lastSuccessAt: String?
    package var lastEventAt: String?
    package var everySeconds: Int64?
    package var createdAt: String
    /// `--keep` and `--remember` as chosen; nil for a feed that never chose (it stays so).
    package var keep: String?
    package var remember: String?

    package init(_ record: FeedRecord, now: Date = .now) {
        retryNotBefore = record.retryNotBefore.map(Timestamp.format)
        lastFetchAt = record.lastFetchAt.map(Timestamp.format)
        lastSuccessAt = record.lastSuccessAt.map(Timestamp.format)
        lastEventAt = record.stream.map { Timestamp.format($0.lastEventAt) }
        everySeconds = record.every.map { $0.components.seconds }
        createdAt = Timestamp.format(now)
        keep = record.keepIsChosen ? record.retention.keep.text : nil
        remember = record.keepIsChosen ? record.retention.remember.text : nil
    }
}
