import Dispatch
import FeedBase
import FeedHTTP
import FeedModel
import FoundationEssentials
import Glibc

/// `feeds add` without `--kind`: asks the URL once and picks the kind from what it returns (a
/// JSON Feed's `version`, a Graph `data` array, a JSON array of items), else asks `URL/1` for a
/// post object (`indexed`). When it cannot tell, the failure (65) says what it saw; when the URL
/// answers with an HTTP failure, the failure is that status's (77 for 401, 75 for 429 or 503…):
/// the server's answer, not its data, is what stands in the way.
package enum KindDetection {
    /// What detection found: the kind, and in words what the first page holds, for the line
    /// `feeds add` prints ("jsonfeed 'Daring Fireball', 48 entries on the first page").
    package struct Found: Equatable {
        package var kind: FeedKind
        package var summary: String
        /// The feed's own URL when the one given was an HTML page naming it (autodiscovery).
        package var url: String? = nil
        /// The document's own title (a JSON Feed's `title`), which can name the feed.
        package var title: String? = nil
    }

    package static func detect(_ feed: FeedRegistration, fetcher: any FeedFetching, maxBodySize: Int = 16 * 1024 * 1024)
        throws -> Found
    {
        let answer: HTTPResponse
        switch try probe(feed.url, feed: feed, fetcher: fetcher, maxBodySize: maxBodySize) {
        case .stream(let kind, let contentType):
            return Found(kind: kind, summary: "\(kind.rawValue): \(kind.describedAs) (\(contentType))")
        case .answer(let response):
            answer = response
        }
        if answer.status == 200, let markup = FeedMarkup.of(answer.body) {
            switch markup {
            case .syndication:
                throw FeedFailure.badData("RSS/Atom: feedcli reads JSON feeds (\(feed.url) is an RSS or Atom document)")
            case .page(let html):
                // A page that names its JSON Feed (`<link rel="alternate" type="application/feed+json">`)
                // is followed, once; the feed is registered under the JSON Feed's URL.
                guard let href = FeedMarkup.jsonFeedLink(in: html),
                    let target = URLReference.resolve(href, against: answer.effectiveURL), target != feed.url
                else { break }
                var linked = feed
                linked.url = target
                var found = try detectJSON(
                    linked, answer: try fetch(target, feed: linked, fetcher: fetcher), fetcher: fetcher)
                found.url = target
                found.summary += " (the JSON Feed \(target) that the page names)"
                return found
            }
        }
        return try detectJSON(feed, answer: answer, fetcher: fetcher)
    }

    /// What a JSON answer is, else whether `URL/1` is a post.
    private static func detectJSON(_ feed: FeedRegistration, answer: HTTPResponse, fetcher: any FeedFetching) throws
        -> Found
    {
        let value = answer.status == 200 ? try? JSONParser.value(of: answer.body, projection) : nil
        if let value, let kind = FeedShape.guess(value), kind != .indexed {
            if kind == .linked, let refusal = itemsWithoutIDs(answer.body, url: feed.url) { throw refusal }
            return Found(
                kind: kind, summary: summary(of: value, body: answer.body, kind: kind), title: value["title"]?.string)
        }
        try refuseFailing(answer, asked: feed.url)
        // `URL/1` names a post only where the URL is a path: after a query string it would be a
        // request for nothing (`…?uri=at://…/1`), so such a URL is not probed.
        guard !feed.url.contains("?") else {
            try refuseMissing(answer, asked: feed.url)
            throw FeedFailure.badData(
                "cannot tell what kind of feed \(feed.url) is: it answered \(seen(answer)); "
                    + "give --kind, or describe it with --kind json --items EXPR …")
        }
        let first = IndexedFeed.url(base: feed.url, index: 1)
        let post = try fetch(first, feed: feed, fetcher: fetcher)
        if post.status == 200, let item = try? IndexedFeed.item(from: post),
            case .object? = try? JSONParser.value(of: post.body, .kindOnly)
        {
            let title = item.title.map { ", post 1 '\(Excerpt.of($0, limit: 60))'" } ?? ""
            return Found(kind: .indexed, summary: "indexed, one post per URL (\(first)\(title))")
        }
        try refuseFailing(post, asked: first)
        if post.status == 404 || post.status == 410 { try refuseMissing(answer, asked: feed.url) }
        throw FeedFailure.badData(
            "cannot tell what kind of feed \(feed.url) is: it answered \(seen(answer)), "
                + "and \(first) answered \(seen(post)); give --kind, or describe it with --kind json --items EXPR …")
    }

    /// Why an array whose items have no usable `id` is not a `linked` feed (Lobsters'
    /// `newest.json`: every sync would skip every item), naming the members of its first item
    /// that could serve as one; nil when an item of the first 100 has an id, or there is none.
    private static func itemsWithoutIDs(_ body: Data, url: String) -> FeedFailure? {
        guard let spans = try? JSONParser.parsePage(body, items: .topLevel, rest: .kindOnly).items, spans.count > 0
        else {
            return nil
        }
        let sample = 0..<min(spans.count, 100)
        guard !sample.contains(where: { spans.value($0, .members(["id"]))["id"]?.id != nil }) else { return nil }
        guard case .object(let first) = spans.value(0, .whole) else {
            return .badData(
                "\(url) answered an array of \(spans.value(0, .kindOnly).kindDescription)s, not of items with an `id`: "
                    + "give --kind, or describe it with --kind json --items EXPR --id EXPR")
        }
        let names = first.keys
        let candidates = names.filter {
            $0.lowercased().hasSuffix("id") || ["guid", "uuid", "url", "link", "permalink"].contains($0.lowercased())
        }
        let suggestion = (candidates.first ?? names.first).map { " (for example --kind json --id .\($0))" } ?? ""
        let shown = (candidates.isEmpty ? names : candidates).prefix(5).map { "`\(Excerpt.of($0, limit: 20))`" }.joined(
            separator: ", ")
        return .badData(
            "\(url) answered an array of \(spans.count) items without an `id`, which is not a linked feed: "
                + "describe it with --kind json and an --id expression\(suggestion); fields that could serve: \(shown)")
    }

    /// Throws the failure of an answer that is an HTTP failure other than 404 or 410 (which an
    /// indexed feed's base URL may well give), in that status's terms, with what detection saw.
    private static func refuseFailing(_ response: HTTPResponse, asked url: String) throws(FeedFailure) {
        let status = response.status
        guard status >= 400, status != 404, status != 410 else { return }
        // The body is the words `fetch` kept of a refusal (`ServerMessage`), when there were any.
        let says = ServerMessage.of(response.body).map { " (the server says: \($0))" } ?? ""
        let what = "cannot tell what kind of feed it is: \(url) answered HTTP \(status)\(says)"
        switch HTTPStatusFailure(status: status, url: url).failure {
        case .unauthorized:
            throw .unauthorized(
                status: status, url: "\(url) (\(what); a feed that needs a token takes --token-env VAR, or give --kind)"
            )
        case .temporary:
            throw .temporary("\(what); try again later, or give --kind")
        case .refused:
            throw .refused(status: status, url: "\(url) (\(what); give --kind)")
        case let other:
            throw other
        }
    }

    /// Throws "not found" (69, as any refusal) for a URL that answered 404 or 410 where nothing
    /// else could be a feed either (its `URL/1` answered the same, or was not asked): a mistyped
    /// URL, whatever kind was meant.
    private static func refuseMissing(_ response: HTTPResponse, asked url: String) throws(FeedFailure) {
        guard response.status == 404 || response.status == 410 else { return }
        let what = response.status == 404 ? "not found" : "gone"
        throw .refused(status: response.status, url: "\(url) (\(what): check the URL, or give --kind)")
    }

    /// The parts of an answer detection reads: what `FeedShape` reads, and a JSON Feed's title.
    /// Only those are built, so a huge or hostile answer costs its bytes.
    private static let projection = FeedShape.projection.union(.members(["title"]))

    /// The first page in words: its title (a JSON Feed's), and how many items it holds.
    private static func summary(of value: JSON, body: Data, kind: FeedKind) -> String {
        let title = value["title"]?.string.map { " '\(Excerpt.of($0, limit: 60))'" } ?? ""
        let array: JSONParser.ItemArray? =
            switch kind {
            case .jsonfeed: .member("items")
            case .graph: .member("data")
            case .linked: .topLevel
            default: nil
            }
        let items =
            array.flatMap { try? JSONParser.parsePage(body, items: $0, rest: .kindOnly).items?.count }
            ?? presetItemCount(of: body, kind: kind)
        let count = items.map { ", \($0) \($0 == 1 ? "entry" : "entries") on the first page" } ?? ""
        return kind.rawValue + title + count
    }

    /// How many items a preset's first page holds, where its API keeps them (the first of the
    /// paths that holds an array); nil for other kinds.
    private static func presetItemCount(of body: Data, kind: FeedKind) -> Int? {
        let paths: [[String]] =
            switch kind {
            case .reddit: [["data", "children"]]
            case .discourse: [["topic_list", "topics"], ["latest_posts"]]
            case .hn: [["hits"]]
            case .lemmy: [["posts"]]
            case .bluesky: [["feed"], ["posts"]]
            case .stackexchange: [["items"]]
            default: []
            }
        for path in paths {
            if path.count == 1, let name = path.first {
                // A top-level array's items are found as spans of the body, not built.
                if let count = try? JSONParser.parsePage(body, items: .member(name), rest: .kindOnly).items?.count {
                    return count
                }
                continue
            }
            let projection = path.reversed().reduce(JSONProjection.whole) { inner, name in .parts([name: inner]) }
            if let count = (try? JSONParser.value(of: body, projection))?[path]?.array?.count { return count }
        }
        return nil
    }

    /// What a response was, in a few words: "HTTP 404", "HTTP 200 with an object with `a`, `b`".
    private static func seen(_ response: HTTPResponse) -> String {
        guard response.status == 200 else { return "HTTP \(response.status)" }
        guard let value = try? JSONParser.value(of: response.body, .kindOnly) else {
            return "HTTP 200 with something that is not JSON (it starts \(Excerpt.of(response.body, limit: 40)))"
        }
        if case .object = value, let names = JSONParser.memberNames(of: response.body, limit: 5) {
            return "HTTP 200 with an object with "
                + names.map { "`\(Excerpt.of($0, limit: 20))`" }.joined(separator: ", ")
        }
        return "HTTP 200 with \(value.kindDescription)"
    }

    /// One GET, waited for (commands run on a thread that may block).
    /// What the URL answers: a live stream (told by its `Content-Type`, read no further: a
    /// stream has no end to wait for), or the whole answer. One request, read as a stream.
    private enum Probed {
        case stream(FeedKind, contentType: String)
        case answer(HTTPResponse)
    }

    private static func probe(_ url: String, feed: FeedRegistration, fetcher: any FeedFetching, maxBodySize: Int) throws
        -> Probed
    {
        struct Reading: Sendable {
            var head: HTTPResponse?
            var body: [UInt8] = []
            var outcome: Result<Void, any Error>?
        }
        let reading = Locked(Reading())
        let done = DispatchSemaphore(value: 0)
        let subscription = fetcher.stream(url, feed: feed, lastEventID: nil, idleTimeout: .seconds(30)).subscribe {
            event in
            let finished = reading.withLock { reading -> Bool in
                guard reading.outcome == nil else { return false }
                switch event {
                case .next(.head(let head)):
                    reading.head = head
                    if StreamFormat.kind(forContentType: head.headers["Content-Type"]) != nil {
                        reading.outcome = .success(())
                    }
                case .next(.bytes(let bytes, _)):
                    reading.body += bytes
                    if reading.body.count > maxBodySize {
                        reading.outcome = .failure(
                            FeedFailure.badData(
                                "\(Redaction.maskingSecrets(in: url)) answered more than \(maxBodySize) bytes"))
                    }
                case .failed(let error): reading.outcome = .failure(error)
                case .completed: reading.outcome = .success(())
                }
                return reading.outcome != nil
            }
            if finished { done.signal() }
        }
        done.wait()
        subscription.dispose()
        let read = reading.value
        if case .failure(let error)? = read.outcome { throw error }
        guard var head = read.head else { throw FeedFailure.protocolError("no answer from \(url)") }
        if let contentType = head.headers["Content-Type"], let kind = StreamFormat.kind(forContentType: contentType) {
            return .stream(kind, contentType: contentType)
        }
        head.body = Data(read.body)
        return .answer(head)
    }

    private static func fetch(_ url: String, feed: FeedRegistration, fetcher: any FeedFetching) throws -> HTTPResponse {
        let outcome = Locked<Result<HTTPResponse, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let subscription = fetcher.get(url, feed: feed, validators: nil, acceptsNotFound: true).subscribe { event in
            switch event {
            case .next(let response): outcome.withLock { $0 = .success(response) }
            case .failed(let error):
                outcome.withLock { $0 = .failure(error) }
                done.signal()
            case .completed: done.signal()
            }
        }
        done.wait()
        subscription.dispose()
        guard let result = outcome.value else { throw FeedFailure.protocolError("no answer from \(url)") }
        do {
            return try result.get()
        } catch let status as HTTPStatusFailure {
            // Any status is something seen; only a transport failure ends detection. What the
            // server said of it is kept as the answer's body.
            return HTTPResponse(status: status.status, body: Data((status.serverSays ?? "").utf8), effectiveURL: url)
        }
    }
}
