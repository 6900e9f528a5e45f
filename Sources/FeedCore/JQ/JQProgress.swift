import CWorkerSandbox
import FoundationEssentials

/// What a jq worker is working on, written into two integers that feedcli and the worker both
/// map (a memfd handed to the worker as descriptor 3), so that when a worker dies of an
/// expression, feedcli can say which option on which item it was ("--published on item 3").
/// A plain store per step: nothing is sent, so the hot path pays nothing measurable.
package struct JQProgress: Equatable, Sendable {
    package enum Stage: Equatable, Sendable {
        /// jq was reading the page (or an item, for `--filter`).
        case reading
        /// `--items`.
        case items
        /// The request's field expression at this index.
        case field(Int)
        /// The request's page expression at this index.
        case pageExpression(Int)
        /// `--filter`.
        case filter
    }

    package var stage: Stage
    /// The item's position (0-based), for a field or the filter.
    package var item: Int

    package var encoded: (Int32, Int32) {
        let stage: Int32 =
            switch self.stage {
            case .reading: 0
            case .items: 1
            case .filter: 2
            case .field(let index): 1000 + Int32(clamping: index)
            case .pageExpression(let index): 2000 + Int32(clamping: index)
            }
        return (stage, Int32(clamping: item))
    }

    package init(_ stage: Stage, item: Int = 0) {
        (self.stage, self.item) = (stage, item)
    }

    package init?(stage: Int32, item: Int32) {
        switch stage {
        case 0: self.stage = .reading
        case 1: self.stage = .items
        case 2: self.stage = .filter
        case 1000..<2000: self.stage = .field(Int(stage - 1000))
        case 2000..<3000: self.stage = .pageExpression(Int(stage - 2000))
        default: return nil
        }
        guard item >= 0 else { return nil }
        self.item = Int(item)
    }
}

/// The worker's side of the shared integers: set before each step. Only on the worker's thread.
package struct JQProgressWriter {
    package let shared: UnsafeMutablePointer<Int32>?

    package func set(_ progress: JQProgress) {
        let (stage, item) = progress.encoded
        sandbox_progress_set(shared, stage, item)
    }
}
