import FeedHTTP
import FeedJQ
import FeedModel
import FoundationEssentials

/// A feed's `--filter`: a jq expression run on each item's `source`; an item for which its first
/// output is false or null (or which gives none) is neither stored nor delivered. An expression
/// that fails on an item fails the feed's page (65), naming the option and the item.
package struct ItemFilter: Sendable {
    package let expression: String
    package let limits: JQ.Limits

    /// The positions of the items that pass, ascending. One request to a jq worker for the whole
    /// page, with every item's source (lone surrogate escapes as jq 1.6 can read them).
    package func passing(_ items: PageItems, page: String) throws(FeedFailure) -> [Int] {
        guard !items.isEmpty else { return [] }
        let sources = items.map { LoneSurrogates.replaced(in: $0.source.text) }
        let passes: [Bool]
        do throws(JQWorkers.Failure) {
            switch try JQ.filter(expression, items: sources, limits: limits) {
            case .success(let result): passes = result
            case .failure(let failure):
                let id = items[failure.position].id
                throw JQWorkers.Failure(
                    error: .runtime(
                        "on item \(failure.position + 1) (id \(Excerpt.of(id, limit: 40))): \(failure.message)"),
                    progress: nil)
            }
        } catch {
            let option = error.progress.map { "--filter (item \($0.item + 1))" } ?? "--filter"
            throw JQFailure.of(error.error, option: option, page: page)
        }
        return passes.indices.filter { passes[$0] }
    }
}

extension ItemFilter {
    /// The numbers (`seq`) of the stored entries among `entries` that the filter drops: `feeds set
    /// --filter` applies a new filter to what is stored and unread. Asked in chunks (one worker
    /// request each), so a feed with many unread entries is never one huge request. An entry it
    /// fails on fails the whole (65, naming the entry), before anything changes.
    package func dropped(_ entries: some Sequence<Entry>, chunk: Int = 500) throws(FeedFailure) -> [Int64] {
        var dropped: [Int64] = []
        var batch: [Entry] = []
        func ask() throws(FeedFailure) {
            defer { batch.removeAll(keepingCapacity: true) }
            guard !batch.isEmpty else { return }
            let passes: [Bool]
            do throws(JQWorkers.Failure) {
                switch try JQ.filter(
                    expression, items: batch.map { LoneSurrogates.replaced(in: $0.source.text) }, limits: limits)
                {
                case .success(let result): passes = result
                case .failure(let failure):
                    throw JQWorkers.Failure(
                        error: .runtime(
                            "on stored entry \(Excerpt.of(batch[failure.position].id, limit: 40)): \(failure.message)"),
                        progress: nil)
                }
            } catch {
                throw JQFailure.of(error.error, option: "--filter", page: "the stored entries")
            }
            dropped += zip(batch, passes).filter { !$0.1 }.map(\.0.seq)
        }
        for entry in entries {
            batch.append(entry)
            if batch.count == chunk { try ask() }
        }
        try ask()
        return dropped
    }
}

/// A page format whose items then pass the feed's filter.
package struct FilteredPages: PageFormat {
    package let format: any PageFormat
    package let filter: ItemFilter

    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        try filtered(format.page(from: response), url: response.effectiveURL)
    }

    package func page(ofItems items: [[UInt8]], url: String) throws(FeedFailure) -> FeedPage {
        try filtered(format.page(ofItems: items, url: url), url: url)
    }

    private func filtered(_ page: FeedPage, url: String) throws(FeedFailure) -> FeedPage {
        var page = page
        let passing = try filter.passing(page.items, page: url)
        page.filtered = page.items.count - passing.count
        page.items = page.items.keeping(passing)
        return page
    }
}

/// A jq failure as the feed's failure: 65 naming the option and the page ("--items on page URL:
/// …"); a missing libjq is a configuration error (78).
package enum JQFailure {
    package static func of(_ error: JQError, option: String, page: String) -> FeedFailure {
        switch error {
        case .unavailable(let message): .configuration("\(option): \(message)")
        default: .badData("\(option) on \(Redaction.maskingSecrets(in: page)): \(error)")
        }
    }
}
