import ArgumentParser
import FeedModel

/// A `json` feed's jq expressions and any feed's filter (`feeds add`, `feeds set`); the
/// contract's "Any JSON API".
public struct ExpressionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("jq: the items of one response, each an object (default .[]).", valueName: "expr"))
    public var items: String?
    @Option(help: ArgumentHelp("jq, on an item: its id, a string or number (default .id).", valueName: "expr"))
    public var id: String?
    @Option(help: ArgumentHelp("jq, on an item: its title.", valueName: "expr")) public var title: String?
    @Option(help: ArgumentHelp("jq, on an item: its text.", valueName: "expr")) public var text: String?
    @Option(
        name: .customLong("url"),
        help: ArgumentHelp("jq, on an item: its web address (relative ones resolved).", valueName: "expr"))
    public var urlExpression: String?
    @Option(
        name: .customLong("author"),
        help: ArgumentHelp(
            "jq, on an item: its author. Nostr feeds: an author's public key in hex (repeatable).",
            valueName: "expr"))
    public var authors: [String] = []
    /// The `--author` expression (the last one given; `feeds add` refuses several but for nostr).
    public var author: String? { authors.last }
    @Option(
        help: ArgumentHelp(
            "jq, on an item: when it was published (RFC 3339, RFC 2822, Unix seconds or ms).",
            valueName: "expr"))
    public var published: String?
    @Option(help: ArgumentHelp("jq, on the response: the next page's URL.", valueName: "expr")) public var nextUrl:
        String?
    @Option(help: ArgumentHelp("jq, on the response: the next page's cursor (with --cursor-param).", valueName: "expr"))
    public var cursor: String?
    @Option(help: ArgumentHelp("The query parameter the cursor is sent as.", valueName: "name")) public var cursorParam:
        String?
    @Option(help: ArgumentHelp("Pages by number: the query parameter, until a page with no items.", valueName: "name"))
    public var pageParam: String?
    @Option(help: ArgumentHelp("The first page's number (default 1).", valueName: "n")) public var firstPage: Int?
    @Option(
        help: ArgumentHelp(
            "jq, on an item's source: items for which it gives false or null are skipped.",
            valueName: "expr"))
    public var filter: String?
    @Option(
        name: .customLong("event"),
        help: ArgumentHelp(
            "Server-Sent Events feeds: take only events of this type (repeatable; default: every event "
                + "whose data is a JSON object).", valueName: "name"))
    public var events: [String] = []
    @Option(
        help: ArgumentHelp(
            "Stream feeds: a polled URL read after every (re)connection for what the stream sent "
                + "meanwhile.", valueName: "url"))
    public var catchUp: String?
    @Option(help: ArgumentHelp("jq, on the catch-up URL's response: its items (default .[]).", valueName: "expr"))
    public var catchUpItems: String?

    public init() {}

    public var expressions: FeedExpressions {
        FeedExpressions(
            items: items, id: id, title: title, text: text, url: urlExpression, author: author,
            published: published, nextURL: nextUrl, cursor: cursor, cursorParam: cursorParam,
            pageParam: pageParam, firstPage: firstPage, filter: filter, events: events.isEmpty ? nil : events,
            catchUp: catchUp, catchUpItems: catchUpItems)
    }
}
