/// The `json` kind: any JSON response, read by the feed's jq expressions (`FeedExpressions`),
/// run by libjq on its own thread (`JQ`) within the run's `--timeout`.
///
/// Exactness: jq 1.6 holds numbers as doubles, so an id read through jq's values could be
/// rounded. Each expression is therefore first run as `path(EXPR)`, and the values are read at
/// those paths from feedcli's own parse of the response (numbers as sent, `source` as the
/// server's members); only an expression that is not a path (`"\(.a)-\(.b)"`) is read from jq's
/// output.
struct JSONAPIFeed: PageFormat {
    /// The registered URL, to which a cursor or page number is added.
    let feedURL: String
    let expressions: FeedExpressions
    let timeout: Duration

    /// The most items one response may give; a runaway `--items` stops here and fails.
    static let itemLimit = 1_000_000

    /// The most JSON values a page may hold. jq holds a page whole, at about 500 bytes a value
    /// for small objects, so this keeps a run's peak memory near 110 MiB (the contract's bound is
    /// 160); real APIs' pages hold a few tens of thousands.
    static let valueLimit = 200_000

    func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        guard JSONParser.valueCountBound(of: response.body) <= Self.valueLimit else {
            throw .badData("page \(Redaction.maskingPasswords(in: url)) holds more than \(Self.valueLimit) JSON values, more than a "
                           + "json feed reads (jq holds a page whole): ask the API for smaller pages (a limit or per_page "
                           + "parameter), or, for a JSON array of objects with an `id`, use --kind linked")
        }
        let document = try FeedDocument.parse(response, what: "page \(url)")
        let expressions = self.expressions, feedURL = self.feedURL
        let mapped: Result<FeedPage, MappingFailure>
        do {
            mapped = try JQ.run(timeout: timeout) { session throws(JQError) in
                let mapping = Mapping(expressions: expressions)
                return Result { () throws(MappingFailure) in
                    try mapping.page(document.value, text: document.source.text, response: response, feedURL: feedURL,
                                     session: &session)
                }
            }
        } catch {
            throw JQFailure.of(error, option: "the jq expressions", page: url)
        }
        switch mapped {
        case .success(let page): return page
        case .failure(let failure): throw JQFailure.of(failure.error, option: failure.option, page: url)
        }
    }
}

/// An expression's failure, with the option that gave it.
struct MappingFailure: Error {
    let option: String
    let error: JQError
}

/// One response read by the expressions, on jq's thread.
private struct Mapping {
    let expressions: FeedExpressions

    func page(
        _ document: JSON, text: String, response: HTTPResponse, feedURL: String, session: inout JQSession
    ) throws(MappingFailure) -> FeedPage {
        let root = try attempt("--items") { () throws(JQError) in try session.value(text) }
        let nodes = try values(of: expressions.items ?? ".[]", option: "--items", on: document, jq: root,
                               limit: JSONAPIFeed.itemLimit, session: &session)
        var items: [FeedItem] = [], skipped = SkippedItems()
        for (position, node) in nodes.enumerated() {
            guard case .object = node else {
                throw MappingFailure(option: "--items", error: .runtime("item \(position + 1) is \(node.kindDescription), not an object"))
            }
            switch try item(node, position: position, base: response.effectiveURL, session: &session) {
            case .success(let item): items.append(item)
            case .failure(let why): skipped.add(SkippedItem(position: position + 1, page: response.effectiveURL, why: why.why))
            }
        }
        let next = try next(document, jq: root, itemCount: nodes.count, response: response, feedURL: feedURL, session: &session)
        return FeedPage(items: PageItems(items), next: next, skipped: skipped)
    }

    /// Why an item has no id to keep it by.
    struct NoID: Error {
        let why: String
    }

    private func item(
        _ node: JSON, position: Int, base: String, session: inout JQSession
    ) throws(MappingFailure) -> Result<FeedItem, NoID> {
        let source = RawJSON(node)
        var item = LinkedFeed.fields(of: node, source: source)
        var jqItem: JQValue?
        func field(_ expression: String?, _ option: String) throws(MappingFailure) -> JSON?? {
            guard let expression else { return nil }
            if jqItem == nil { jqItem = try attempt(option) { () throws(JQError) in try session.value(source.text) } }
            guard let value = jqItem else { return nil }
            do {
                return .some(try values(of: expression, option: option, on: node, jq: value, limit: 1, session: &session).first)
            } catch {
                throw MappingFailure(option: option, error: .runtime("item \(position + 1): \(error.error)"))
            }
        }
        func text(_ value: JSON?, _ option: String) throws(MappingFailure) -> String? {
            switch value {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case .inexactString(let text)?: return text.decoded
            case .number(let text)?: return text
            case let other?:
                throw MappingFailure(option: option, error: .runtime("item \(position + 1): gave \(other.kindDescription), not a string"))
            }
        }
        if let id = try field(expressions.id, "--id") {
            switch id {
            case nil, .null?, .string?:
                guard let value = id?.id else { return .failure(NoID(why: SkippedItem.why(id: id ?? .null, option: "--id"))) }
                item.id = value
            case let value? where value.id != nil:
                item.id = value.id ?? ""
            case let other?:
                throw MappingFailure(option: "--id", error: .runtime("item \(position + 1): gave \(other.kindDescription), not a string or number"))
            }
        } else {
            guard let value = node["id"]?.id else { return .failure(NoID(why: SkippedItem.why(id: node["id"]))) }
            item.id = value
        }
        if let value = try field(expressions.title, "--title") { item.title = try text(value, "--title") }
        if let value = try field(expressions.text, "--text") { item.text = try text(value, "--text") }
        if let value = try field(expressions.author, "--author") { item.author = try text(value, "--author") }
        if let value = try field(expressions.url, "--url") { item.url = try text(value, "--url") }
        if let value = try field(expressions.published, "--published") { item.published = value.flatMap(FeedTime.normalize) }
        item.url = item.url.flatMap { LinkHeader.resolve($0, against: base) ?? $0 }
        return .success(item)
    }

    private func next(
        _ document: JSON, jq root: JQValue, itemCount: Int, response: HTTPResponse, feedURL: String, session: inout JQSession
    ) throws(MappingFailure) -> String? {
        let url = response.effectiveURL
        switch expressions.paging {
        case .nextURL(let expression)?:
            switch try values(of: expression, option: "--next-url", on: document, jq: root, limit: 1, session: &session).first {
            case nil, .null?, .bool(false)?: return nil
            case let value? where value.string != nil:
                guard let next = value.string, !next.isEmpty else { return nil }
                return LinkHeader.resolve(next, against: url)
            case let other?: throw MappingFailure(option: "--next-url", error: .runtime("gave \(other.kindDescription), not a URL"))
            }
        case .cursor(let expression, let parameter)?:
            switch try values(of: expression, option: "--cursor", on: document, jq: root, limit: 1, session: &session).first {
            case nil, .null?, .bool(false)?: return nil
            case let value? where value.text != nil:
                guard let cursor = value.text, !cursor.isEmpty else { return nil }
                return URLQuery.setting(parameter, to: cursor, in: feedURL)
            case let other?: throw MappingFailure(option: "--cursor", error: .runtime("gave \(other.kindDescription), not a string or number"))
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

    /// The values `expression` gives on `node` (its jq twin: `jq`), read at the paths it names
    /// when it names paths, else from jq's output.
    private func values(
        of expression: String, option: String, on node: JSON, jq value: JQValue, limit: Int, session: inout JQSession
    ) throws(MappingFailure) -> [JSON] {
        // A newline before the closing parenthesis: a comment in the expression ends there.
        if let paths = try? session.outputs(of: "path(\n\(expression)\n)", on: value, limit: limit),
           let found = Self.navigate(node, paths.texts) {
            if paths.more, limit == JSONAPIFeed.itemLimit { throw tooMany(option) }
            return found
        }
        let outputs = try attempt(option) { () throws(JQError) in try session.outputs(of: expression, on: value, limit: limit) }
        if outputs.more, limit == JSONAPIFeed.itemLimit { throw tooMany(option) }
        var parsed: [JSON] = []
        for text in outputs.texts {
            guard let json = try? JSONParser.parse(text) else {
                throw MappingFailure(option: option, error: .runtime("jq gave output feedcli cannot read"))
            }
            parsed.append(json)
        }
        return parsed
    }

    private func tooMany(_ option: String) -> MappingFailure {
        MappingFailure(option: option, error: .runtime("gave more than \(JSONAPIFeed.itemLimit) items"))
    }

    private func attempt<T>(_ option: String, _ body: () throws(JQError) -> T) throws(MappingFailure) -> T {
        do { return try body() } catch { throw MappingFailure(option: option, error: error) }
    }

    /// The values at jq paths (`["data","children",0]`) in `node`; nil when a path has a step
    /// that feedcli does not follow (a slice), so jq's own output is used instead.
    static func navigate(_ node: JSON, _ paths: [String]) -> [JSON]? {
        var found: [JSON] = []
        for text in paths {
            guard let steps = (try? JSONParser.parse(text))?.array else { return nil }
            var current = node
            for step in steps {
                switch (step, current) {
                case (.string(let key), .object(let object)): current = object[key] ?? .null
                case (.inexactString(let key), .object(let object)): current = object[key.decoded] ?? .null
                case (.string, .null), (.inexactString, .null), (.number, .null): current = .null
                case (.number(let digits), .array(let elements)):
                    guard let index = Int(digits) else { return nil }
                    let position = index < 0 ? elements.count + index : index
                    current = elements.indices.contains(position) ? elements[position] : .null
                default: return nil
                }
            }
            found.append(current)
        }
        return found
    }
}
