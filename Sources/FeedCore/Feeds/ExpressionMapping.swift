import FeedHTTP
import FeedJQ
import FeedModel
import FoundationEssentials

/// An expression's failure, with the option that gave it.
package struct MappingFailure: Error {
    package let option: String
    package let error: JQError
}

/// One response read from the worker's outcomes and feedcli's own parse of it.
struct ExpressionMapping {
    let fields: [ExpressionFeed.Field]
    let base: String
    /// The most bytes the page's expressions may build (values, not paths into the page), all
    /// items together: `--max-size`, the bound a response has. A field that would pass it
    /// skips its item, named.
    let builtLimit: Int
    /// Each id kept so far on this page, and the item (1-based) that gave it.
    private var ids: [String: (position: Int, source: RawJSON)] = [:]
    /// Bytes built by expressions so far on this page.
    private var built = 0

    init(fields: [ExpressionFeed.Field], base: String, builtLimit: Int) {
        (self.fields, self.base, self.builtLimit) = (fields, base, builtLimit)
    }

    mutating func page(
        _ document: JSON, outcomes: (items: JQOutcome, fields: [[JQOutcome]], page: [JQOutcome]),
        response: HTTPResponse,
        feedURL: String, paging: FeedExpressions.Paging?, pageOption: String?
    ) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        let nodes: [JSON]
        do {
            nodes = try Self.values(outcomes.items, on: document, option: "--items", bound: .items)
        } catch {
            throw JQFailure.of(error.error, option: error.option, page: url)
        }
        // Items of which none is an object: the mapping is wrong, as a wrong shape is (one
        // message, not a warning per item); a page with some objects skips only the others.
        if !nodes.isEmpty, !nodes.contains(where: { if case .object = $0 { true } else { false } }) {
            throw .badData("--items on \(Redaction.maskingSecrets(in: url)) gave \(Self.counted(nodes)), no object")
        }
        var items: [FeedItem] = []
        var skipped = SkippedItems()
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
            next = try Self.next(
                paging, outcome: outcomes.page.first, document: document, option: pageOption ?? "",
                itemCount: nodes.count, response: response, feedURL: feedURL)
        } catch {
            throw JQFailure.of(error.error, option: error.option, page: url)
        }
        return FeedPage(items: PageItems(items), next: next, skipped: skipped)
    }

    /// `values` counted by kind, as a message says them: "3 strings", "2 numbers and 1 null".
    static func counted(_ values: [JSON]) -> String {
        var counts: [(kind: String, count: Int)] = []
        for value in values {
            let kind: String
            switch value {
            case .null: kind = "null"
            case .bool: kind = "boolean"
            case .number: kind = "number"
            case .string, .inexactString: kind = "string"
            case .array: kind = "array"
            case .object: kind = "object"
            }
            if let index = counts.firstIndex(where: { $0.kind == kind }) {
                counts[index].count += 1
            } else {
                counts.append((kind, 1))
            }
        }
        let parts = counts.map { "\($0.count) \($0.kind)\($0.count == 1 ? "" : "s")" }
        return parts.count > 1
            ? parts.dropLast().joined(separator: ", ") + " and " + (parts.last ?? "") : parts.joined()
    }

    /// Why an item cannot be kept (no id, a field of the wrong type, the same id as another).
    struct Skip: Error {
        let why: String
    }

    /// The item `node` makes with its fields' outcomes; nil for an item the page held before.
    private mutating func item(_ node: JSON, position: Int, outcomes: [JQOutcome]) -> Result<FeedItem?, Skip> {
        guard case .object = node else {
            return .failure(Skip(why: "--items gave \(node.kindDescription), not an object"))
        }
        guard outcomes.count == fields.count else { return .failure(Skip(why: "jq gave no fields for it")) }
        let source = RawJSON(node)
        var item = DefaultFields.fields(of: node, source: source)
        var idFromExpression = false
        for (field, outcome) in zip(fields, outcomes) {
            // What jq built rather than found in the page (`--title '"x" * 15000000'`) is bounded
            // here, not only by the worker's memory.
            if case .values(let texts, _) = outcome, let text = texts.first {
                let (sum, overflow) = built.addingReportingOverflow(text.utf8.count)
                built = overflow ? .max : sum
                guard built <= builtLimit else {
                    return .failure(
                        Skip(
                            why: "\(field.option) built \(ByteCount.of(text.utf8.count)), past the "
                                + "\(ByteCount.of(builtLimit)) a page's expressions may build (--max-size)"))
                }
            }
            let value: JSON?
            do {
                value = try Self.values(outcome, on: node, option: field.option, bound: .field).first
            } catch {
                return .failure(Skip(why: "\(field.option): \(error.error)"))
            }
            guard let path = field.field else {
                switch value {
                case nil, .null?, .string?:
                    guard let id = value?.id else {
                        return .failure(Skip(why: SkippedItem.why(id: value ?? .null, option: "--id")))
                    }
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
        item.url = item.url.flatMap { URLReference.resolve($0, against: base) ?? $0 }
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
            switch try outcome.map({ outcome throws(MappingFailure) in
                try values(outcome, on: document, option: option, bound: .field)
            })?.first {
            case nil, .null?, .bool(false)?: return nil
            case let value? where value.string != nil:
                guard let next = value.string, !next.isEmpty else { return nil }
                return URLReference.resolve(next, against: url) ?? next
            case let other?:
                throw MappingFailure(option: option, error: .runtime("gave \(other.kindDescription), not a URL"))
            }
        case .cursor(_, let parameter)?:
            switch try outcome.map({ outcome throws(MappingFailure) in
                try values(outcome, on: document, option: option, bound: .field)
            })?.first {
            case nil, .null?, .bool(false)?: return nil
            case let value? where value.text != nil:
                guard let cursor = value.text, !cursor.isEmpty else { return nil }
                return URLQuery.setting(parameter, to: cursor, in: feedURL)
            case let other?:
                throw MappingFailure(
                    option: option, error: .runtime("gave \(other.kindDescription), not a string or number"))
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

    /// How many values an outcome may stand for: a page's items (more than `itemLimit` fails the
    /// page), or one field's value (the worker sends at most one).
    enum Bound {
        case items
        case field
    }

    /// The values an outcome stands for: read at its paths in `node` (feedcli's exact parse of
    /// what the expression ran on), or parsed from jq's output.
    static func values(_ outcome: JQOutcome, on node: JSON, option: String, bound: Bound) throws(MappingFailure)
        -> [JSON]
    {
        switch outcome {
        case .failed(let message):
            throw MappingFailure(option: option, error: .runtime(message))
        case .paths(let paths, let more):
            if more, bound == .items { throw tooMany(option) }
            var found: [JSON] = []
            found.reserveCapacity(paths.count)
            for path in paths {
                guard let steps = JQPath.steps(path), let value = JQPath.value(at: steps, in: node) else {
                    throw MappingFailure(
                        option: option,
                        error: .runtime("jq gave a path feedcli cannot follow: \(Excerpt.of(path, limit: 60))"))
                }
                found.append(value)
            }
            return found
        case .values(let texts, let more):
            if more, bound == .items { throw tooMany(option, built: true) }
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
        MappingFailure(
            option: option,
            error: .runtime(
                built
                    ? "built more than \(ExpressionFeed.valueLimit) items (not paths into the page): a page's items are at most as many as its values"
                    : "gave more than \(ExpressionFeed.itemLimit) items"))
    }
}
