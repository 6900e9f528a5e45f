import FeedModel
import FoundationEssentials

/// A walk's new entries, oldest first, made from its pages' items when asked for: a walk that
/// found a million entries holds its pages, not a million entries, and delivers them a batch at
/// a time.
package struct NewEntries: Sendable {
    /// Each page's new items, pages in walk order (newest first), items newest first.
    package let pages: [PageItems]
    package let feed: String
    /// The fetch time every entry carries (RFC 3339).
    package let fetchedAt: String
    package let count: Int

    package init(pages: [PageItems], feed: String, fetchedAt: String) {
        self.pages = pages
        self.feed = feed
        self.fetchedAt = fetchedAt
        count = pages.reduce(0) { $0 + $1.count }
    }

    /// The entries at `positions`, counted from the oldest (0) to the newest (`count - 1`).
    package func entries(_ positions: Range<Int>) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(positions.count)
        var page = pages.count - 1
        var pageStart = count - (pages.last?.count ?? 0)  // newest-first index of `page`'s first item
        for position in positions {
            let index = count - 1 - position  // newest-first, across pages
            while index < pageStart, page > 0 {
                page -= 1
                pageStart -= pages[page].count
            }
            entries.append(pages[page][index - pageStart].entry(feed: feed, fetchedAt: fetchedAt))
        }
        return entries
    }
}
