import FoundationEssentials

/// A feed's jq expressions (the contract's "Any JSON API"): for a `json` feed, where its items,
/// their fields and the next page are; for a feed of any kind, the filter its items must pass.
/// Stored with the feed as one JSON object, and shown as such by `feeds list --json`.
public struct FeedExpressions: Sendable, Equatable {
    /// The items of one response, each an object (`--items`, default `.[]`).
    public var items: String?
    public var id: String?
    public var title: String?
    public var text: String?
    public var url: String?
    public var author: String?
    public var published: String?
    /// The next page's URL (`--next-url`).
    public var nextURL: String?
    /// The next page's cursor (`--cursor`), set as query parameter `cursorParam` of the feed's URL.
    public var cursor: String?
    public var cursorParam: String?
    /// Page numbers (`--page-param`), from `firstPage` (default 1), until a page with no items.
    public var pageParam: String?
    public var firstPage: Int?
    /// Items for which it gives false or null are neither stored nor delivered (`--filter`).
    public var filter: String?
    /// A Server-Sent Events feed's event types (`--event`, repeatable); nil: every event whose
    /// data is a JSON object.
    public var events: [String]?
    /// A stream feed's catch-up (`--catch-up URL`): a polled URL read after every connection,
    /// for what the stream sent while no connection was open; its items by `catchUpItems`
    /// (`--catch-up-items`, default `.[]`) and the feed's own field expressions.
    public var catchUp: String?
    public var catchUpItems: String?
    /// A `nostr` feed's filter (`--author`, `--nostr-kind`, `--tag`, `--since`).
    public var nostr: NostrFilter?

    public init(
        items: String? = nil, id: String? = nil, title: String? = nil, text: String? = nil, url: String? = nil,
        author: String? = nil, published: String? = nil, nextURL: String? = nil, cursor: String? = nil,
        cursorParam: String? = nil, pageParam: String? = nil, firstPage: Int? = nil, filter: String? = nil,
        events: [String]? = nil, catchUp: String? = nil, catchUpItems: String? = nil, nostr: NostrFilter? = nil
    ) {
        (self.items, self.id, self.title, self.text, self.url, self.author, self.published) = (
            items, id, title, text, url, author, published
        )
        (self.nextURL, self.cursor, self.cursorParam, self.pageParam, self.firstPage) = (
            nextURL, cursor, cursorParam, pageParam, firstPage
        )
        self.filter = filter
        self.events = events
        self.catchUp = catchUp
        self.catchUpItems = catchUpItems
        self.nostr = nostr
    }

    /// Each member: its name in the stored object and `feeds list --json`, its option, and the
    /// property. One table, so storing, showing and the command line agree.
    package static let members:
        [(key: String, option: String, isExpression: Bool, path: WritableKeyPath<FeedExpressions, String?> & Sendable)] =
            [
                ("items", "--items", true, \.items), ("id", "--id", true, \.id), ("title", "--title", true, \.title),
                ("text", "--text", true, \.text), ("url", "--url", true, \.url), ("author", "--author", true, \.author),
                ("published", "--published", true, \.published), ("next_url", "--next-url", true, \.nextURL),
                ("cursor", "--cursor", true, \.cursor), ("cursor_param", "--cursor-param", false, \.cursorParam),
                ("page_param", "--page-param", false, \.pageParam), ("filter", "--filter", true, \.filter),
                ("catch_up", "--catch-up", false, \.catchUp),
                ("catch_up_items", "--catch-up-items", true, \.catchUpItems),
            ]

    /// Whether nothing is set.
    public var isEmpty: Bool { self == FeedExpressions() }

    /// Whether anything but the filter (and a stream's event types) is set: the members only a
    /// `json` feed (or a stream's field expressions) uses.
    public var hasMapping: Bool {
        var mapping = self
        mapping.filter = nil
        mapping.events = nil
        mapping.catchUp = nil
        mapping.catchUpItems = nil
        mapping.nostr = nil
        return !mapping.isEmpty
    }

    /// The jq expressions that are set, with their options, for checking at `feeds add`.
    public var expressions: [(option: String, expression: String)] {
        Self.members.compactMap { member in
            guard member.isExpression, let expression = self[keyPath: member.path] else { return nil }
            return (member.option, expression)
        }
    }

    /// `self` with every member that `changes` sets taken from it; an empty string unsets one.
    public func merging(_ changes: FeedExpressions) -> FeedExpressions {
        var merged = self
        for member in Self.members {
            if let value = changes[keyPath: member.path] { merged[keyPath: member.path] = value.isEmpty ? nil : value }
        }
        if let first = changes.firstPage { merged.firstPage = first }
        if let events = changes.events { merged.events = events.isEmpty ? nil : events }
        if let nostr = changes.nostr { merged.nostr = nostr }
        return merged
    }

    /// How the next page is found, by the contract's rules: the one option given, else the
    /// response's `Link: rel="next"` header. Nil when the options given do not make one way.
    package var paging: Paging? {
        switch (nextURL, cursor, cursorParam, pageParam) {
        case (let next?, nil, nil, nil): .nextURL(next)
        case (nil, let cursor?, let parameter?, nil): .cursor(cursor, parameter: parameter)
        case (nil, nil, nil, let parameter?): .pageNumbers(parameter: parameter, first: firstPage ?? 1)
        case (nil, nil, nil, nil): .linkHeader
        default: nil
        }
    }

    package enum Paging: Equatable {
        case nextURL(String)
        case cursor(String, parameter: String)
        case pageNumbers(parameter: String, first: Int)
        case linkHeader
    }

    /// Why the paging options given do not make one way to the next page; nil when they do.
    public var pagingProblem: String? {
        guard paging == nil else {
            if firstPage != nil, pageParam == nil { return "--first-page goes with --page-param" }
            return nil
        }
        if cursor != nil, cursorParam == nil {
            return "--cursor needs --cursor-param NAME (the query parameter it is sent as)"
        }
        if cursorParam != nil, cursor == nil { return "--cursor-param needs --cursor EXPR" }
        return "give one way to the next page: --next-url, --cursor with --cursor-param, or --page-param"
    }

    // MARK: stored form

    /// The stored form: a JSON object of the members that are set; nil when none is.
    public var json: String? {
        guard !isEmpty else { return nil }
        var writer = JSONWriter()
        var fields: [(String, (inout JSONWriter) -> Void)] = Self.members.compactMap { member in
            guard let value = self[keyPath: member.path] else { return nil }
            return (member.key, { $0.string(value) })
        }
        if let firstPage { fields.append(("first_page", { $0.number(firstPage) })) }
        if let events {
            fields.append(("events", { $0.strings(events) }))
        }
        if let nostr { fields.append(("nostr", { nostr.write(to: &$0) })) }
        writer.object(fields)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Reads the stored form back; nil when `text` is not one (a damaged store).
    public init?(json text: String) {
        guard case .object(let object)? = try? JSONParser.parse(text) else { return nil }
        for member in Self.members {
            self[keyPath: member.path] = object[member.key]?.string
        }
        firstPage = object["first_page"]?.text.flatMap { Int($0) }
        events = object["events"]?.array?.compactMap(\.string)
        nostr = object["nostr"].flatMap { NostrFilter(stored: $0) }
    }
}
