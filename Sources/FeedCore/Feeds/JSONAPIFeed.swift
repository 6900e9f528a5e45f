import FeedHTTP
import FeedJQ
import FeedModel
import FoundationEssentials
import Glibc

/// The `json` kind: any JSON response, read by the feed's jq expressions (`FeedExpressions`),
/// run by libjq in a sandboxed worker process (`JQ`) within the run's `--timeout` and
/// `--jq-memory`.
///
/// Exactness: jq 1.6 holds numbers as doubles, so an id read through jq's values could be
/// rounded. The worker therefore answers each expression with the paths it names when it names
/// paths, and the values are read at those paths from feedcli's own parse of the response
/// (numbers as sent, `source` as the server's members); only an expression that is not a path
/// (`"\(.a)-\(.b)"`) is read from jq's output. Two different items given one id by such an
/// expression are never merged: the second is a skipped item.
///
/// One page is one request to the worker: the page, `--items`, every field expression (run on
/// each item that is an object) and the next-page expression go together, and the outcomes
/// come back together.
package struct JSONAPIFeed: PageFormat {
    /// The registered URL, to which a cursor or page number is added.
    package let feedURL: String
    package let expressions: FeedExpressions
    package let limits: JQ.Limits

    /// The most items one response may give; a runaway `--items` stops here and fails.
    package static let itemLimit = 1_000_000

    /// The most JSON values a page may hold. jq holds a page whole, at about 500 bytes a value
    /// for small objects, so this keeps a worker's memory near 110 MiB (the contract's bound for
    /// a run is 160); real APIs' pages hold a few tens of thousands.
    package static let valueLimit = 200_000

    /// An item field set by an expression: its option, the expression, and where it goes (nil
    /// for the id, which has rules of its own).
    package typealias Field = (option: String, expression: String, field: WritableKeyPath<FeedItem, String?>?)

    /// The item fields set by expressions, in the order they are sent to the worker.
    private var fields: [Field] {
        var fields: [Field] = []
        if let id = expressions.id { fields.append(("--id", id, nil)) }
        for (option, expression, path) in [("--title", expressions.title, \FeedItem.title), ("--text", expressions.text, \FeedItem.text),
                                           ("--author", expressions.author, \FeedItem.author), ("--url", expressions.url, \FeedItem.url),
                                           ("--published", expressions.published, \FeedItem.published)] {
            if let expression { fields.append((option, expression, path)) }
        }
        return fields
    }

    /// The expression run on the page for the next page, with its option.
    private var pageExpression: (option: String, expression: String)? {
        switch expressions.paging {
        case .nextURL(let expression)?: ("--next-url", expression)
        case .cursor(let expression, _)?: ("--cursor", expression)
        default: nil
        }
    }

    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        guard JSONParser.valueCountBound(of: response.body) <= Self.valueLimit else {
            throw .badData("page \(Redaction.maskingSecrets(in: url)) holds more than \(Self.valueLimit) JSON values, more than a "
                           + "json feed reads (jq holds a page whole): ask the API for smaller pages (a limit or per_page "
                           + "parameter), or, for a JSON array of objects with an `id`, use --kind linked")
        }
        let document = try FeedDocument.parse(response, what: "page \(url)")
        let fields = self.fields, pageExpression = self.pageExpression
        let request = JQMapRequest(
            page: LoneSurrogates.replaced(in: document.source.text), items: expressions.items ?? ".[]", itemLimit: Self.itemLimit,
            builtItemLimit: Self.valueLimit, fields: fields.map(\.expression),
            pageExpressions: pageExpression.map { [$0.expression] } ?? [])
        let outcomes: (items: JQOutcome, fields: [[JQOutcome]], page: [JQOutcome])
        do {
            outcomes = try JQ.map(request, limits: limits)
        } catch {
            let option: String
            switch error.progress?.stage {
            case .field(let index)? where fields.indices.contains(index):
                option = "\(fields[index].option) (item \((error.progress?.item ?? 0) + 1))"
            case .pageExpression?: option = pageExpression?.option ?? "--items"
            case .items?, .reading?: option = "--items"
            default: option = "the jq expressions"
            }
            throw JQFailure.of(error.error, option: option, page: url)
        }
        var mapping = Mapping(fields: fields, base: url)
        return try mapping.page(document.value, outcomes: outcomes, response: response, feedURL: feedURL,
                                paging: expressions.paging, pageOption: pageExpression?.option)
    }
}

/// An expression's failure, with the option that gave it.
package struct MappingFailure: Error {
    package let option: String
    package let error: JQError
}

/// One response read from the worker's outcomes and feedcli's own parse of it.
private struct Mapping {
    let fields: [JSONAPIFeed.Field]
    let base: String
    /// Each id kept so far on this page, and the item (1-based) that gave it.
    private var ids: [String: (position: Int, source: RawJSON)] = [:]

    init(fields: [JSONAPIFeed.Field], base: String) {
        (self.fields, self.base) = (fields, base)
    }

    mutating func page(
        _ document: JSON, outcomes: (items: JQOutcome, fields: [[JQOutcome]], page: [JQOutcome]), response: HTTPResponse,
        feedURL: String, paging: FeedExpressions.Paging?, pageOption: String?
    ) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        let nodes: [JSON]
        do {
            nodes = try Self.values(outcomes.items, on: document, option: "--items", limit: JSONAPIFeed.itemLimit)
        } catch {
            throw JQFailure.of(error.error, option: error.option, page: url)
        }
        var items: [FeedItem] = [], skipped = SkippedItems()
        for (position, node) in nodes.enumerated() {
            let itemOutcomes = outcomes.fields.indices.contains(position) ? outcomes.fields[position] : []
            switch item(node, position: position, outcomes: itemOutcomes) {
            case .success(let item?): items.append(item)
            case .success(nil): continue  // the same item twice on one page: one entry
            case .failure(let why): skipped.add(SkippedItem(position: position + 1, page: url, why: why.why))
            }
        }
        let next: String?
        do {
            next = try Self.next(paging, outcome: outcomes.page.first, document: document, option: pageOption ?? "",
                                 itemCount: nodes.count, response: response, feedURL: feedURL)
        } catch {
            throw JQFailure.of(error.error, option: error.option, page: url)
        }
        return FeedPage(items: PageItems(items), next: next, skipped: skipped)
    }

    /// Why an item cannot be kept (no id, a field of the wrong type, the same id as another).
    struct Skip: Error {
        let why: String
    }

    /// The item `node` makes with its fields' outcomes; nil for an item the page held before.
    private mutating func item(_ node: JSON, position: Int, outcomes: [JQOutcome]) -> Result<FeedItem?, Skip> {
        guard case .object = node else { return .failure(Skip(why: "--items gave \(node.kindDescription), not an object")) }
        guard outcomes.count == fields.count else { return .failure(Skip(why: "jq gave no fields for it")) }
        let source = RawJSON(node)
        var item = LinkedFeed.fields(of: node, source: source)
        var idFromExpression = false
        for (field, outcome) in zip(fields, outcomes) {
            let value: JSON?
            do {
                value = try Self.values(outcome, on: node, option: field.option, limit: 1).first
            } catch {
                return .failure(Skip(why: "\(field.option): \(error.error)"))
            }
            guard let path = field.field else {
                switch value {
                case nil, .null?, .string?:
                    guard let id = value?.id else { return .failure(Skip(why: SkippedItem.why(id: value ?? .null, option: "--id"))) }
                    item.id = id
                case let other? where other.id != nil:
                    item.id = other.id ?? ""
                case let other?:
                    return .failure(Skip(why: "--id gave \(other.kindDescription), not a string or number"))
                }
                idFromExpression = true
                continue
            }
            if field.option == "--published" {
                item.published = value.flatMap(FeedTime.normalize)
                continue
            }
            switch value {
            case nil, .null?: item[keyPath: path] = nil
            case .string(let text)?: item[keyPath: path] = text
            case .inexactString(let text)?: item[keyPath: path] = text.decoded
            case .number(let text)?: item[keyPath: path] = text
            case let other?: return .failure(Skip(why: "\(field.option) gave \(other.kindDescription), not a string"))
            }
        }
        if !idFromExpression {
            guard let id = node["id"]?.id else { return .failure(Skip(why: SkippedItem.why(id: node["id"]))) }
            item.id = id
        }
        // A link is kept only when it is one: a relative one is resolved, one built of a
        // missing field (`…/profile/null/…`) is left out by the preset's expression.
        item.url = item.url.flatMap { LinkHeader.resolve($0, against: base) ?? $0 }
        if let earlier = ids[item.id] {
            // The same item twice is one entry; two different items given one id are not merged.
            return earlier.source == source
                ? .success(nil)
                : .failure(Skip(why: "same id as item \(earlier.position) (\(Excerpt.of(item.id, limit: 40)))"))
        }
        ids[item.id] = (position + 1, source)
        return .success(item)
    }

    private static func next(
        _ paging: FeedExpressions.Paging?, outcome: JQOutcome?, document: JSON, option: String, itemCount: Int,
        response: HTTPResponse, feedURL: String
    ) throws(MappingFailure) -> String? {
        let url = response.effectiveURL
        switch paging {
        case .nextURL?:
            switch try outcome.map({ outcome throws(MappingFailure) in try values(outcome, on: document, option: option, limit: 1) })?.first {
            case nil, .null?, .bool(false)?: return nil
            case let value? where value.string != nil:
                guard let next = value.string, !next.isEmpty else { return nil }
                return LinkHeader.resolve(next, against: url) ?? next
            case let other?: throw MappingFailure(option: option, error: .runtime("gave \(other.kindDescription), not a URL"))
            }
        case .cursor(_, let parameter)?:
            switch try outcome.map({ outcome throws(MappingFailure) in try values(outcome, on: document, option: option, limit: 1) })?.first {
            case nil, .null?, .bool(false)?: return nil
            case let value? where value.text != nil:
                guard let cursor = value.text, !cursor.isEmpty else { return nil }
                return URLQuery.setting(parameter, to: cursor, in: feedURL)
            case let other?: throw MappingFailure(option: option, error: .runtime("gave \(other.kindDescription), not a string or number"))
            }
        case .pageNumbers(let parameter, let first)?:
            guard itemCount > 0 else { return nil }
            let current = URLQuery.value(of: parameter, in: url).flatMap { Int($0) } ?? first
            let (following, overflow) = current.addingReportingOverflow(1)
            return overflow ? nil : URLQuery.setting(parameter, to: String(following), in: feedURL)
        case .linkHeader?, nil:
            return LinkHeader.next(in: response.headers, base: url)
        }
    }

    /// The values an outcome stands for: read at its paths in `node` (feedcli's exact parse of
    /// what the expression ran on), or parsed from jq's output.
    static func values(_ outcome: JQOutcome, on node: JSON, option: String, limit: Int) throws(MappingFailure) -> [JSON] {
        switch outcome {
        case .failed(let message):
            throw MappingFailure(option: option, error: .runtime(message))
        case .paths(let paths, let more):
            if more, limit == JSONAPIFeed.itemLimit { throw tooMany(option) }
            var found: [JSON] = []
            found.reserveCapacity(paths.count)
            for path in paths {
                guard let steps = JQPath.steps(path), let value = JQPath.value(at: steps, in: node) else {
                    throw MappingFailure(option: option, error: .runtime("jq gave a path feedcli cannot follow: \(Excerpt.of(path, limit: 60))"))
                }
                found.append(value)
            }
            return found
        case .values(let texts, let more):
            if more, limit == JSONAPIFeed.itemLimit { throw tooMany(option, built: true) }
            var parsed: [JSON] = []
            parsed.reserveCapacity(texts.count)
            for text in texts {
                guard let json = try? JSONParser.parse(text) else {
                    throw MappingFailure(option: option, error: .runtime("jq gave output feedcli cannot read"))
                }
                parsed.append(json)
            }
            return parsed
        }
    }

    private static func tooMany(_ option: String, built: Bool = false) -> MappingFailure {
        MappingFailure(option: option, error: .runtime(built
            ? "built more than \(JSONAPIFeed.valueLimit) items (not paths into the page): a page's items are at most as many as its values"
            : "gave more than \(JSONAPIFeed.itemLimit) items"))
    }
}
