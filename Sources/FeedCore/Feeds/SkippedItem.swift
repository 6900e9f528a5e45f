import FeedModel
import FoundationEssentials

/// An item a feed's page held but feedcli could not keep (no usable id, a field of the wrong
/// type, the same id as another item of the page): named on stderr (feed,
/// position, why) and counted in `status`, never dropped in silence, and never a reason to keep
/// the page's other items out.
package struct SkippedItem: Sendable, Equatable {
    /// 1-based position on its page (for `indexed`, the index requested).
    package let position: Int
    package let page: String
    package let why: String

    /// The stderr line's text (after `feedcli: FEED: warning: `).
    package var message: String { "skipped item \(position) of \(Redaction.maskingSecrets(in: page)): \(why)" }

    /// Why an item with this `id` member cannot be kept, by the contract's id rule (a non-blank
    /// string or a number).
    package static func why(id: JSON?, option: String = "`id`") -> String {
        switch id {
        case nil: "it has no \(option)"
        case .null?: "its \(option) is null"
        case .string?: "its \(option) is blank"
        case let other?: "its \(option) is \(other.kindDescription), not a string or a number"
        }
    }
}

/// The items one page held that could not be kept: the first `namedLimit` named one by one, the
/// rest only counted, so that a hostile page of a million such items costs neither a million
/// stderr lines nor the memory to hold them.
package struct SkippedItems: Sendable, Equatable {
    package static let namedLimit = 100

    /// The first items skipped, each with its position and why.
    private(set) var named: [SkippedItem] = []
    /// How many more were skipped past `namedLimit`.
    private(set) var unnamed = 0

    package var count: Int { named.count + unnamed }

    /// Records one more skipped item; `item` is only made while items are still named.
    package mutating func add(_ item: @autoclosure () -> SkippedItem) {
        if named.count < Self.namedLimit { named.append(item()) } else { unnamed += 1 }
    }

    /// One stderr line's text for each named item, and one for the rest of the page.
    package func messages(page: String) -> [String] {
        named.map(\.message)
            + (unnamed > 0
                ? [
                    "skipped \(unnamed) more items of \(Redaction.maskingSecrets(in: page)) "
                        + "(only the first \(Self.namedLimit) of a page are named)"
                ]
                : [])
    }
}
