import FeedModel
import FoundationEssentials
import Glibc

/// A page's items as its kind reads them, in the server's order (newest first), without the
/// items that have no usable id.
///
/// The built-in kinds keep their items as spans of the response body (`ItemSpans`) and read an
/// item each time it is asked for: a walk looks at each item's id once, and only the new ones
/// are read again, a batch at a time, to be delivered. So what a page costs to hold is its body
/// and a few bytes an item, not a tree of its values. The `json` kind's items are read by jq
/// expressions and kept as they come.
package struct PageItems: RandomAccessCollection, Sendable {
    /// How a kind makes an item of one element (its value and compact text); nil when the
    /// element has no usable id.
    package typealias Reader = @Sendable (JSON, RawJSON) -> FeedItem?

    private enum Storage: Sendable {
        case read([FeedItem])
        /// The elements at `positions` (indices into `spans`), read by `reader` from the parts
        /// `projection` names.
        case spans(ItemSpans, positions: [UInt32], projection: JSONProjection, reader: Reader)
    }

    private let storage: Storage

    package init(_ items: [FeedItem] = []) {
        storage = .read(items)
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The elements of `spans` that `reader` makes an item of, reading only the parts
    /// `projection` names (the fields the reader uses); the others are skipped items (position
    /// on `page`, and why by the id rule).
    package static func reading(
        _ spans: ItemSpans, page: String, projection: JSONProjection, reader: @escaping Reader
    ) -> (items: PageItems, skipped: SkippedItems) {
        var positions: [UInt32] = []
        var skipped = SkippedItems()
        // A first look needs no compact text: a reader only carries the source along.
        let noSource = RawJSON(compactText: "")
        for index in 0..<spans.count {
            let value = spans.value(index, projection)
            if reader(value, noSource) != nil {
                positions.append(UInt32(truncatingIfNeeded: index))  // spans.count fits: spans are 32-bit
            } else {
                skipped.add(SkippedItem(position: index + 1, page: page, why: SkippedItem.why(id: value["id"])))
            }
        }
        return (
            PageItems(storage: .spans(spans, positions: positions, projection: projection, reader: reader)), skipped
        )
    }

    package var startIndex: Int { 0 }

    package var endIndex: Int {
        switch storage {
        case .read(let items): items.count
        case .spans(_, let positions, _, _): positions.count
        }
    }

    package subscript(position: Int) -> FeedItem {
        switch storage {
        case .read(let items):
            return items[position]
        case .spans(let spans, let positions, let projection, let reader):
            let element = spans.element(Int(positions[position]), projection)
            // The reader made an item of this element when the page was read, and reads it the
            // same way again; the fallback only keeps this total.
            return reader(element.value, element.source) ?? FeedItem(id: "", source: element.source)
        }
    }

    /// These items only (positions in this collection, ascending), read the same way.
    package func keeping(_ kept: [Int]) -> PageItems {
        switch storage {
        case .read(let items):
            return PageItems(kept.map { items[$0] })
        case .spans(let spans, let positions, let projection, let reader):
            return PageItems(
                storage: .spans(spans, positions: kept.map { positions[$0] }, projection: projection, reader: reader))
        }
    }
}
