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
                throw JQWorkers.Failure(error: .runtime("on item \(failure.position + 1) (id \(Excerpt.of(id, limit: 40))): \(failure.message)"),
                                        progress: nil)
            }
        } catch {
            let option = error.progress.map { "--filter (item \($0.item + 1))" } ?? "--filter"
            throw JQFailure.of(error.error, option: option, page: page)
        }
        return passes.indices.filter { passes[$0] }
    }
}

/// A page format whose items then pass the feed's filter.
package struct FilteredPages: PageFormat {
    package let format: any PageFormat
    package let filter: ItemFilter

    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        var page = try format.page(from: response)
        page.items = page.items.keeping(try filter.passing(page.items, page: response.effectiveURL))
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
