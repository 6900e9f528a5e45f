import Foundation

// libFuzzer entry for every decoder that takes server bytes, in one binary: FUZZ_TARGET picks
// the decoder. Compiled by scripts/fuzz.sh together with the decoder sources (nothing else of
// FeedCore), so internal names are visible. Each target checks invariants beyond "no crash".

private let target = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""

/// Started again as a jq worker (the `mapping` and `jq-worker` targets ask one), this binary
/// serves as feedcli does and exits before libFuzzer reads any input.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    JQWorkerMain.serveIfAsked()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let text = String(decoding: data, as: UTF8.self)
    switch target {
    case "graph": page(GraphFeed(), data)
    case "jsonfeed": page(JSONFeedKind(), data)
    case "linked": page(LinkedFeed(), data, headers: [("Link", text)])
    case "indexed": _ = try? IndexedFeed.item(from: response(data))
    case "json": json(data)
    case "link-header": linkHeader(text)
    case "retry-after": retryAfter(text)
    case "timestamp": timestamp(text)
    case "mapping": mapping(data)
    case "html": html(text)
    case "search-query": searchQuery(text)
    case "markup": markup(data)
    case "server-message": serverMessage(data)
    case "sse": serverSentEvents(data)
    case "ndjson": jsonLines(data)
    case "websocket": webSocketFrames(data)
    case "jetstream": jetstream(Array(data))
    case "nostr": nostr(Array(data))
    case "opml": opml(text)
    case "newsboat-urls": newsboatURLs(text)
    case "jq-wire": jqWire(data)
    case "jq-worker": jqWorker(data)
    default: fatalError("set FUZZ_TARGET to one of: \(FuzzTargets.all.joined(separator: " "))")
    }
    return 0
}

enum FuzzTargets {
    static let all = [
        "graph", "jsonfeed", "linked", "indexed", "json", "link-header", "retry-after", "timestamp", "html", "mapping",
        "opml",
        "jq-wire", "jq-worker", "markup", "server-message", "sse", "ndjson", "websocket",
        "jetstream", "nostr", "newsboat-urls", "search-query",
    ]
}

/// An event stream, whole and cut in two where its first byte says (and one byte at a time for
/// short ones): the same events, the same last event id and retry, whatever the chunks; nothing
/// traps, whatever the bytes.
private func serverSentEvents(_ data: Data) {
    guard let first = data.first else { return }
    let stream = Array(data.dropFirst())
    var whole = ServerSentEventParser(maxEventSize: 4096)
    let expected = whole.parse(stream)
    let cut = stream.isEmpty ? 0 : Int(first) % (stream.count + 1)
    var parts = ServerSentEventParser(maxEventSize: 4096)
    let outputs = parts.parse(stream[..<cut]) + parts.parse(stream[cut...])
    precondition(
        outputs == expected && parts.lastEventID == whole.lastEventID && parts.retry == whole.retry,
        "the events depend on where the chunk was cut (\(cut))")
    if stream.count <= 512 {
        var bytes = ServerSentEventParser(maxEventSize: 4096)
        precondition(stream.flatMap { bytes.parse([$0]) } == expected, "one byte at a time differs")
    }
}

/// A Jetstream message, read twice in a row as a connection would: the position never goes
/// down; an event passed as an entry is one (`at://` its id) or a named skipped item, never a
/// failure; nothing traps, whatever the bytes.
private func jetstream(_ message: [UInt8]) {
    var reader = JetstreamMessages(position: "1783175888085434")
    let signals = reader.signals(of: message, number: 1, now: Date(timeIntervalSince1970: 0))
    let position = reader.position
    _ = reader.signals(of: message, number: 2, now: Date(timeIntervalSince1970: 0))
    precondition(
        (position ?? 0) >= 1_783_175_888_085_434 && reader.position == position,
        "the position went down or moved on a replay")
    for case .item(let item) in signals {
        guard let page = try? JetstreamFeed().page(ofItems: [item.json], url: "wss://j/subscribe") else {
            preconditionFailure("an entry's page failed")
        }
        precondition(page.items.count + page.skipped.count == 1, "an event neither an entry nor skipped")
        // Bytes, not characters: a `did` that begins with a combining mark joins the `/` before it
        // into one character, and `hasPrefix` compares characters.
        precondition(page.items.allSatisfy { $0.id.utf8.starts(with: "at://".utf8) }, "an id that is not an at:// URI")
    }
}

/// A relay's message: an event passed as an entry has an id that checks out and makes an entry
/// with that id; the position never goes down; nothing traps, whatever the bytes.
private func nostr(_ message: [UInt8]) {
    var reader = NostrMessages(position: "1711469000")
    let signals = reader.signals(of: message, number: 1, now: Date(timeIntervalSince1970: 0))
    precondition((reader.position ?? 0) >= 1_711_469_000, "the position went down")
    for case .item(let item) in signals {
        guard let event = try? JSONParser.value(of: Data(item.json)) else {
            preconditionFailure("an entry that is not JSON")
        }
        precondition(Nostr.whyUnverified(event) == nil, "an event whose id does not check out passed")
        let page = try? NostrFeed().page(ofItems: [item.json], url: "wss://relay")
        precondition(
            page?.items.count == 1 && Array(page?.items ?? PageItems([])).first?.id == event["id"]?.string,
            "an entry of another id")
    }
}

/// A server's WebSocket bytes, whole, cut in two where the first byte says, and one byte at a
/// time for short ones: the same events whatever the chunks; no message kept past the limit (the
/// second byte); nothing traps, whatever the bytes.
private func webSocketFrames(_ data: Data) {
    guard data.count >= 2 else { return }
    let limit = Int(data[data.startIndex + 1]) * 64
    let stream = Array(data.dropFirst(2))
    var whole = WebSocketFraming(maxMessageSize: limit)
    let expected = whole.parse(stream)
    let cut = stream.isEmpty ? 0 : Int(data[data.startIndex]) % (stream.count + 1)
    var parts = WebSocketFraming(maxMessageSize: limit)
    precondition(
        parts.parse(stream[..<cut]) + parts.parse(stream[cut...]) == expected, "the events depend on the cut (\(cut))")
    if stream.count <= 512 {
        var bytes = WebSocketFraming(maxMessageSize: limit)
        precondition(stream.flatMap { bytes.parse([$0]) } == expected, "one byte at a time differs")
    }
    for event in expected {
        switch event {
        case .text(let bytes), .binary(let bytes):
            precondition(bytes.count <= limit, "a message past the limit was kept")
        case .ping(let bytes), .pong(let bytes): precondition(bytes.count <= 125, "a control frame past 125 bytes")
        default: break
        }
    }
}

/// JSON lines, whole and cut in two: the same lines; none longer than the limit.
private func jsonLines(_ data: Data) {
    guard let first = data.first else { return }
    let stream = Array(data.dropFirst())
    var whole = JSONLineParser(maxLineSize: 1024)
    let expected = whole.parse(stream)
    let cut = stream.isEmpty ? 0 : Int(first) % (stream.count + 1)
    var parts = JSONLineParser(maxLineSize: 1024)
    precondition(parts.parse(stream[..<cut]) + parts.parse(stream[cut...]) == expected, "lines depend on the cut")
    for case .line(let line) in expected { precondition(line.count <= 1024 && !line.contains(0x0A)) }
}

/// A subscription list from another reader (`feeds import`): outlines or an error, and every
/// outline has a URL; a name made of any title is a valid feed name or none.
private func opml(_ text: String) {
    guard let outlines = try? OPML.feedOutlines(in: text) else { return }
    for outline in outlines {
        precondition(OPML.feedURL(in: outline)?.isEmpty == false, "an outline without its URL")
        for title in outline.values {
            if let name = OPML.feedName(from: title) {
                precondition(FeedRegistration.isValidName(name), "bad name \(name)")
            }
        }
    }
}

/// A newsboat `urls` file: every outline it gives is a feed URL, with a name only from a `~`
/// tag; nothing traps, whatever the bytes.
private func newsboatURLs(_ text: String) {
    for outline in NewsboatURLs.outlines(in: text) ?? [] {
        let url = OPML.feedURL(in: outline) ?? ""
        precondition(url.hasPrefix("http://") || url.hasPrefix("https://"), "an outline that is no feed URL: \(url)")
        precondition(Set(outline.keys).isSubset(of: ["xmlUrl", "title"]), "an outline of other parts: \(outline)")
    }
}

private func response(_ data: Data, headers: [(String, String)] = []) -> HTTPResponse {
    HTTPResponse(
        status: 200, headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }), body: data,
        effectiveURL: "https://fuzz.example/feeds/page?x=1")
}

private func page(_ format: any PageFormat, _ data: Data, headers: [(String, String)] = []) {
    guard let page = try? format.page(from: response(data, headers: headers)) else { return }
    for item in page.items {
        // Every item's source is one JSON value that reads back the same.
        guard let reread = try? JSONParser.parse(Data(item.source.text.utf8)) else {
            fatalError("an item's source does not parse: \(item.source.text)")
        }
        precondition(RawJSON(compactText: reread.source.text) == item.source, "source is not compact")
        precondition(!item.id.isEmpty)
        if let published = item.published { precondition(Timestamp.parse(published) != nil) }
    }
}

private func json(_ data: Data) {
    guard let document = try? JSONParser.parse(data) else {
        // What does not parse as a document does not parse as a page either.
        for target in [JSONParser.ItemArray.topLevel, .member("items")] {
            precondition(
                (try? JSONParser.parsePage(data, items: target)) == nil, "a page parsed where its document did not")
        }
        return
    }
    // The compact source parses to the same value, and compacting is idempotent.
    guard let again = try? JSONParser.parse(Data(document.source.text.utf8)) else {
        fatalError("the compact source does not parse: \(document.source.text)")
    }
    // A source cannot hold bytes that are not UTF-8 (they read back as U+FFFD), so an
    // inexact string is compared by its decoded reading (the CI's crash-json input, 2026-11-25).
    precondition(decoded(again.value) == decoded(document.value), "compacting changed the value")
    precondition(again.source == document.source, "compacting is not idempotent")
    // A projection builds exactly the parts it names; member names are read without values.
    for projection in [
        FeedShape.projection, LinkedFeed.itemProjection, JSONFeedKind.itemProjection, JSONProjection.kindOnly,
    ] {
        precondition(
            (try? JSONParser.value(of: data, projection)) == restricted(document.value, projection),
            "a projection built other parts than it names")
    }
    if case .object(let object) = document.value {
        precondition(JSONParser.memberNames(of: data, limit: 7) == Array(object.keys.prefix(7)), "member names differ")
    }
    // Read as a page, the item array's elements are its spans, each reading as the element.
    for target in [JSONParser.ItemArray.topLevel, .member("items")] {
        guard let page = try? JSONParser.parsePage(data, items: target) else {
            fatalError("the document does not parse as a page")
        }
        let array = target == .topLevel ? document.value.array : document.value["items"]?.array
        guard let items = page.items else {
            precondition(array == nil, "an item array was not captured")
            continue
        }
        precondition(array?.count == items.count, "captured items do not match the array")
        for (index, element) in (array ?? []).enumerated() {
            precondition(
                items.value(index) == element && items.element(index).value == element, "a span reads as another value")
        }
    }
}

/// The parts of `value` that `projection` names, as `JSONParser` builds them.
private func restricted(_ value: JSON, _ projection: JSONProjection) -> JSON {
    guard case .parts(let members, let first) = projection else { return value }
    switch value {
    case .object(let object):
        return .object(
            JSONObject(
                object.members.compactMap { member in
                    members[member.key].map { (member.key, restricted(member.value, $0)) }
                }))
    case .array(let elements):
        guard let first, let head = elements.first else { return .array([]) }
        return .array([restricted(head, first)])
    default:
        return value
    }
}

/// `value` with every inexact string as the text it reads as (U+FFFD for what Unicode cannot hold).
private func decoded(_ value: JSON) -> JSON {
    switch value {
    case .inexactString(let text): .string(text.decoded)
    case .array(let elements): .array(elements.map(decoded))
    case .object(let object): .object(JSONObject(object.members.map { ($0.key, decoded($0.value)) }))
    default: value
    }
}

private func linkHeader(_ text: String) {
    _ = LinkHeader.parse(text)
    var headers = HTTPHeaders()
    headers.add(name: "Link", value: text)
    if let next = LinkHeader.next(in: headers, base: "https://fuzz.example/a/b?c=d") {
        precondition(!next.isEmpty)
    }
    _ = URLReference.resolve(text, against: "https://fuzz.example/a/b")
    _ = Redaction.maskingSecrets(in: text)
}

private func retryAfter(_ text: String) {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    if let delay = RetryAfter.parse(text, now: now) {
        precondition(delay >= .zero && delay <= RetryAfter.cap, "Retry-After outside 0...7 days: \(delay)")
    }
    _ = HTTPDate.parse(text)
}

/// The `json` kind's mapping step: the shipped kinds of expression (paths, built strings, cursors,
/// next URLs, a filter, every preset) on hostile responses. The first byte picks the mapping.
private let mappings: [FeedExpressions] = {
    func mapping(
        _ items: String?, id: String? = nil, title: String? = nil, published: String? = nil,
        next: String? = nil, cursor: String? = nil, filter: String? = nil
    ) -> FeedExpressions {
        FeedExpressions(
            items: items, id: id, title: title, published: published, nextURL: next, cursor: cursor,
            cursorParam: cursor == nil ? nil : "after", filter: filter)
    }
    return [
        mapping(nil),
        mapping(
            ".data.children[].data", id: ".name", title: ".title", published: ".created_utc", cursor: ".data.after"),
        mapping(".feed[]?", id: #""\(.a)-\(.b)""#, title: ".t | tostring", published: ".t", next: ".next"),
        mapping("..|objects|select(has(\"id\"))", filter: ".score > 1"),
    ] + FeedKind.allCases.compactMap { $0.preset?.expressions }  // the shipped presets
}()

private func mapping(_ data: Data) {
    guard let selector = data.first else { return }
    let expressions = mappings[Int(selector) % mappings.count]
    let format = FeedRegistration(name: "f", url: "https://fuzz.example/api?x=1", kind: .json, expressions: expressions)
        .pageFormat(jq: JQ.Limits(memory: 0, timeout: .seconds(5)))
    guard let format, let page = try? format.page(from: response(data.dropFirst())) else { return }
    for item in page.items {
        precondition(!item.id.isEmpty, "an empty id")
        guard let reread = try? JSONParser.parse(Data(item.source.text.utf8)), case .object = reread.value else {
            fatalError("an item's source is not an object: \(item.source.text)")
        }
        if let published = item.published { precondition(Timestamp.parse(published) != nil) }
    }
}

/// What a feed URL answers instead of JSON: RSS/Atom told from HTML, and a page's JSON Feed link.
/// What a server says of its refusal: one line safe for a terminal, or nothing; never a trap.
private func serverMessage(_ data: Data) {
    guard let said = ServerMessage.of(data) else { return }
    precondition(
        !said.isEmpty && !said.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "one safe line: \(said)"
    )
}

private func markup(_ data: Data) {
    guard case .page(let html)? = FeedMarkup.of(data) else { return }
    if let href = FeedMarkup.jsonFeedLink(in: html) {
        precondition(!href.isEmpty, "an empty href is no link")
    }
}

/// A search query as a person types it (anything): parsed into words only, each a word of its
/// own again (no space, quote, colon or operator an engine could read), spelt for PostgreSQL
/// with balanced quotes; matched against the text itself and excerpted.
private func searchQuery(_ text: String) {
    let query = SearchQuery.parse(text)
    for term in query.clauses.joined() {
        precondition(!term.words.isEmpty, "a term without words")
        for word in term.words { precondition(SearchText.folded(word) == [word], "a word that is not one: \(word)") }
    }
    if let spelt = PostgresSearch.query(query) {
        precondition(spelt.filter { $0 == "'" }.count % 2 == 0, "unbalanced quotes")
    }
    let document = SearchDocument(title: text, text: text, author: nil, url: text, feed: "f")
    _ = document.matches(query)
    _ = document.score(query)
    _ = PostgresSearch.vector(document)
    let entry = Entry(
        feed: "f", id: "1", title: nil, text: text, fetchedAt: "2026-12-07T00:00:00Z",
        source: RawJSON(compactText: "{}"))
    _ = SearchExcerpt.of(entry, query: query, marks: .brackets)
}

private func html(_ text: String) {
    let rendered = HTMLText.render(text)
    // No tag survives: a `<` left in the text is one with no `>` after it in the input (so not a
    // tag), unless an entity (`&lt;`, `&#62;`) wrote it, which is text the author meant.
    if !text.contains("&"), let open = rendered.text.firstIndex(of: "<") {
        precondition(!rendered.text[open...].contains(">"), "a tag survived")
    }
    let wrapped = TextWrapping.wrap(rendered.text, width: 40)
    // A longer line is one word: it holds no space character (a space that joins the mark after
    // it into one character is not one; `contains(" ")` would look inside characters).
    precondition(
        wrapped.split(separator: "\n").allSatisfy { $0.count <= 40 || !$0.contains { $0 == " " } }, "a line too long")
    _ = HTMLText.decodeEntities(text)
}

private func timestamp(_ text: String) {
    if let date = Timestamp.parse(text) {
        let formatted = Timestamp.format(date)
        precondition(Timestamp.parse(formatted) != nil, "a formatted timestamp does not parse: \(formatted)")
    }
    _ = Timestamp.normalize(text)
    _ = Excerpt.of(text, limit: 60)
}

/// What a worker sends back is read as untrusted bytes: any frame decodes or is refused, never
/// traps; what decodes encodes to what decodes the same.
private func jqWire(_ data: Data) {
    let bytes = [UInt8](data)
    if let reply = try? JQWire.reply(from: bytes) {
        precondition((try? JQWire.reply(from: JQWire.encode(reply))) == reply, "a reply does not survive its encoding")
    }
    if let request = try? JQWire.request(from: bytes) {
        precondition(
            (try? JQWire.request(from: JQWire.encode(request))) == request, "a request does not survive its encoding")
    }
}

/// A random expression (the first line) on a random page (the rest), through a real worker:
/// whatever jq does with them (an error, a crash, a runaway) is the worker's end, never this
/// process's; a reply, when there is one, has the shape asked for.
private func jqWorker(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let expression = String(parts.first ?? "")
    let page = parts.count > 1 ? String(parts[1]) : "{}"
    guard JQExpressionCheck.refusedBuiltin(in: expression) == nil else { return }
    let request = JQMapRequest(
        page: LoneSurrogates.replaced(in: page), items: expression, itemLimit: 1000, builtItemLimit: 1000,
        fields: [".id", expression], pageExpressions: [expression])
    let limits = JQ.Limits(memory: 0, timeout: .seconds(2))
    guard let outcome = try? JQ.map(request, limits: limits) else { return }
    precondition(outcome.page.count == 1, "one outcome per page expression")
    precondition(outcome.fields.allSatisfy { $0.isEmpty || $0.count == 2 }, "two outcomes per object item")
}
