/// A feed's `--filter`: a jq expression run on each item's `source`; an item for which its first
/// output is false or null (or which gives none) is neither stored nor delivered. An expression
/// that fails on an item fails the feed's page (65), naming the option and the item.
struct ItemFilter: Sendable {
    let expression: String
    let timeout: Duration

    /// The positions of the items that pass, ascending. One job on jq's thread for the whole
    /// page; each item is read (and its source handed to jq) one at a time.
    func passing(_ items: PageItems, page: String) throws(FeedFailure) -> [Int] {
        guard !items.isEmpty else { return [] }
        let expression = self.expression
        let passes: [Bool]
        do {
            passes = try JQ.run(timeout: timeout) { session throws(JQError) -> [Bool] in
                var passes: [Bool] = []
                for (position, item) in items.enumerated() {
                    do {
                        let value = try session.value(item.source.text)
                        let first = try session.outputs(of: expression, on: value, limit: 1).texts.first
                        passes.append(first != nil && first != "false" && first != "null")
                    } catch {
                        throw JQError.runtime("on item \(position + 1) (id \(Excerpt.of(item.id, limit: 40))): \(error)")
                    }
                }
                return passes
            }
        } catch {
            throw JQFailure.of(error, option: "--filter", page: page)
        }
        return passes.indices.filter { passes[$0] }
    }
}

/// A page format whose items then pass the feed's filter.
struct FilteredPages: PageFormat {
    let format: any PageFormat
    let filter: ItemFilter

    func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        var page = try format.page(from: response)
        page.items = page.items.keeping(try filter.passing(page.items, page: response.effectiveURL))
        return page
    }
}

/// A jq failure as the feed's failure: 65 naming the option and the page ("--items on page URL:
/// …"); a missing libjq is a configuration error (78).
enum JQFailure {
    static func of(_ error: JQError, option: String, page: String) -> FeedFailure {
        switch error {
        case .unavailable(let message): .configuration("\(option): \(message)")
        default: .badData("\(option) on \(Redaction.maskingPasswords(in: page)): \(error)")
        }
    }
}
