import Dispatch

/// `feeds add` without `--kind`: asks the URL once and picks the kind from what it returns (a
/// JSON Feed's `version`, a Graph `data` array, a JSON array of items), else asks `URL/1` for a
/// post object (`indexed`). When it cannot tell, the failure (65) says what it saw.
enum KindDetection {
    static func detect(_ feed: FeedRegistration, fetcher: any FeedFetching) throws -> FeedKind {
        let answer = try fetch(feed.url, feed: feed, fetcher: fetcher)
        if let kind = kind(of: answer) { return kind }
        let first = IndexedFeed.url(base: feed.url, index: 1)
        let post = try fetch(first, feed: feed, fetcher: fetcher)
        if post.status == 200, (try? IndexedFeed.item(from: post)) != nil, case .object? = try? JSONParser.parse(post.body).value {
            return .indexed
        }
        throw FeedFailure.badData("cannot tell what kind of feed \(feed.url) is: it answered \(seen(answer)), "
                                  + "and \(first) answered \(seen(post)); give --kind, or describe it with --kind json --items EXPR …")
    }

    private static func kind(of response: HTTPResponse) -> FeedKind? {
        guard response.status == 200, let value = try? JSONParser.parse(response.body).value else { return nil }
        return FeedShape.guess(value).flatMap { $0 == .indexed ? nil : $0 }
    }

    /// What a response was, in a few words: "HTTP 404", "HTTP 200 with an object with `a`, `b`".
    private static func seen(_ response: HTTPResponse) -> String {
        guard response.status == 200 else { return "HTTP \(response.status)" }
        guard let value = try? JSONParser.parse(response.body).value else {
            return "HTTP 200 with something that is not JSON (it starts \(Excerpt.of(response.body, limit: 40)))"
        }
        if case .object(let object) = value {
            return "HTTP 200 with an object with " + object.keys.prefix(5).map { "`\(Excerpt.of($0, limit: 20))`" }.joined(separator: ", ")
        }
        return "HTTP 200 with \(value.kindDescription)"
    }

    /// One GET, waited for (commands run on a thread that may block).
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
            // Any status is something seen; only a transport failure ends detection.
            return HTTPResponse(status: status.status, effectiveURL: url)
        }
    }
}
