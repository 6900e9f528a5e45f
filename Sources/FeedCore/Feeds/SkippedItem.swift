/// An item a feed's page held but feedcli could not keep (no usable id): named on stderr (feed,
/// position, why) and counted in `status`, never dropped in silence, and never a reason to keep
/// the page's other items out.
struct SkippedItem: Sendable, Equatable {
    /// 1-based position on its page (for `indexed`, the index requested).
    let position: Int
    let page: String
    let why: String

    /// The stderr line's text (after `feedcli: FEED: warning: `).
    var message: String { "skipped item \(position) of \(Redaction.maskingPasswords(in: page)): \(why)" }

    /// Why an item with this `id` member cannot be kept, by the contract's id rule (a non-blank
    /// string or a number).
    static func why(id: JSON?, option: String = "`id`") -> String {
        switch id {
        case nil: "it has no \(option)"
        case .null?: "its \(option) is null"
        case .string?: "its \(option) is blank"
        case let other?: "its \(option) is \(other.kindDescription), not a string or a number"
        }
    }

    /// The items of a page that have an id, and the others as skipped items.
    static func sort(
        _ items: [(JSON, RawJSON)], page: String, _ read: (JSON, RawJSON) -> FeedItem?
    ) -> (kept: [FeedItem], skipped: [SkippedItem]) {
        var kept: [FeedItem] = [], skipped: [SkippedItem] = []
        for (offset, (item, source)) in items.enumerated() {
            if let read = read(item, source) {
                kept.append(read)
            } else {
                skipped.append(SkippedItem(position: offset + 1, page: page, why: why(id: item["id"])))
            }
        }
        return (kept, skipped)
    }
}
