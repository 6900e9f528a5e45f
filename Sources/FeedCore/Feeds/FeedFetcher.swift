import Dispatch
import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials
import Logging

/// Sends a feed's requests politely: its bearer token, conditional-GET validators, retries with
/// backoff and jitter for what may recover, and a log line per request under `--verbose`.
///
/// A fetch emits the response for 2xx, 304 and (when `acceptsNotFound`) 404; any other status
/// fails with `HTTPStatusFailure`, a transport error with its `FeedFailure` (naming the URL).
/// Retries cover transport errors that may pass (timeouts, refused or reset connections) and
/// 408/429/5xx, never other 4xx; a `Retry-After` longer than the backoff cap is not waited for
/// in-run (the feed's not-before time is stored instead). A feed whose token variable is unset
/// fails with 78 before any request.
///
/// The token goes only to the feed URL's own origin (`URLOrigin`): a next-page link, a stored
/// resume URL or a page reached through a redirect may lead elsewhere, and that request is sent
/// without it. (Within one request curl drops the header itself when a redirect changes host,
/// port or scheme, as long as `CURLOPT_UNRESTRICTED_AUTH` stays unset.)
///
/// Threading: responses are handed from the HTTP client's worker thread to `workQueue`, so
/// decoding, store work and printing never run on (or hold up) the thread that drives curl. A
/// stream's parts go to a serial queue of the stream's own instead, where it is parsed; what is
/// read there reaches `workQueue` through `handOver`.
package struct FeedFetcher: FeedFetching {
    package let http: HTTPClient
    package let workQueue: DispatchQueue
    package let options: FetchOptions
    package let scheduler: any Scheduler
    package let random: @Sendable () -> Double
    package let environment: [String: String]
    package let logger: Logger

    /// The response headers `-vv` shows: what decides caching, paging and retries.
    package static func interesting(_ headers: HTTPHeaders) -> String {
        let names = [
            "Content-Type", "Content-Encoding", "ETag", "Last-Modified", "Cache-Control", "Link", "Retry-After",
            "Location",
        ]
        let shown = names.compactMap { name in headers[name].map { "\(name): \(Excerpt.of($0, limit: 200))" } }
        return shown.isEmpty ? "" : "; " + shown.joined(separator: "; ")
    }

    /// The request's headers as `-vv` shows them, feedcli's own first; a token is not shown.
    private static func sentHeaders(_ headers: HTTPHeaders) -> String {
        (["User-Agent: \(HTTPClient.userAgent)", "Accept-Encoding: (what curl decodes)"]
            + headers.map {
                $0.name == "Authorization" ? "Authorization: Bearer (a token, not shown)" : "\($0.name): \($0.value)"
            })
            .joined(separator: "; ")
    }

    package func get(_ url: String, feed: FeedRegistration, validators: Validators?, acceptsNotFound: Bool)
        -> Observable<HTTPResponse>
    {
        answered(url, feed: feed, validators: validators, acceptsNotFound: acceptsNotFound).observe(on: workQueue)
    }

    package func getAsAnswered(_ url: String, feed: FeedRegistration, acceptsNotFound: Bool) -> Observable<HTTPResponse>
    {
        answered(url, feed: feed, validators: nil, acceptsNotFound: acceptsNotFound)
    }

    /// One GET with its checks, retries and log lines, its outcome on the HTTP client's thread
    /// (or the retry scheduler's).
    private func answered(_ url: String, feed: FeedRegistration, validators: Validators?, acceptsNotFound: Bool)
        -> Observable<HTTPResponse>
    {
        var request = HTTPRequest(url: url, timeout: options.timeout, maxBodySize: options.maxBodySize)
        do throws(FeedFailure) { try authorize(&request, feed: feed) } catch { return .fail(error) }
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let date = validators?.lastModified { request.headers.add(name: "If-Modified-Since", value: date) }
        let logger = self.logger
        var once = http.get(request)
        // Only a run that logs (`-v`) pays for the log lines: a sync of 1,000 quiet feeds built
        // 1,000 unused header lists before.
        if logger.logLevel <= .info {
            let shown = Redaction.maskingSecrets(in: url)
            // What goes out: the client's own headers (its User-Agent; curl asks for every
            // encoding it decodes) and the request's.
            let headers = request.headers
            once = once.handleEvents(
                onSubscribe: {
                    logger.debug("GET \(shown) sending \(Self.sentHeaders(headers))")
                },
                onNext: { response in
                    logger.info("GET \(shown) -> \(response.status) in \(Self.milliseconds(response.elapsed)) ms")
                    logger.debug(
                        "GET \(shown) answered \(response.body.count) bytes\(Self.interesting(response.headers))")
                },
                onFailed: { error in
                    logger.info("GET \(shown) -> \(error)")
                })
        }
        let checked =
            once
            .map { response -> HTTPResponse in
                let ok =
                    (200...299).contains(response.status) || response.status == 304
                    || (acceptsNotFound && response.status == 404)
                guard ok else {
                    throw HTTPStatusFailure(
                        status: response.status, url: url, retryAfter: response.retryAfter,
                        serverSays: (400...499).contains(response.status) ? ServerMessage.of(response.body) : nil,
                        tokenHint: [401, 403].contains(response.status) ? tokenHint(for: feed) : nil)
                }
                return response
            }
        let cap = options.retryCap
        let policy = RetryPolicy(
            maxRetries: options.retries, base: options.retryBase, cap: cap,
            shouldRetry: { error in
                switch error {
                case let status as HTTPStatusFailure:
                    return status.isRetryable && (status.retryAfter ?? .zero) <= cap
                case let http as HTTPError:
                    return http.isTransient
                default:
                    return false
                }
            },
            minimumDelay: { ($0 as? HTTPStatusFailure)?.retryAfter })
        return
            checked
            .retry(policy, scheduler: scheduler, random: random) { attempt, delay, error in
                logger.info(
                    "retry \(attempt) of \(Redaction.maskingSecrets(in: url)) in \(Self.milliseconds(delay)) ms after \(FeedFailure(fetching: error).map { "\($0)" } ?? "\(error)")"
                )
            }
            .catch { error in
                guard let http = error as? HTTPError else { throw error }
                throw FeedFailure(http, url: url)
            }
    }

    package func stream(_ url: String, feed: FeedRegistration, lastEventID: String?, idleTimeout: Duration)
        -> Observable<HTTPStreamPart>
    {
        var request = HTTPRequest(
            url: url, connectTimeout: min(options.timeout, .seconds(30)), maxBodySize: options.maxBodySize,
            idleTimeout: idleTimeout)
        do throws(FeedFailure) { try authorize(&request, feed: feed) } catch { return .fail(error) }
        let accept =
            feed.kind.streamFormat == .jsonLines ? "application/x-ndjson, application/jsonl" : "text/event-stream"
        request.headers.add(name: "Accept", value: accept)
        request.headers.add(name: "Cache-Control", value: "no-cache")
        // An id never holds a line end or NUL when it comes from the stream (the parser ends
        // lines there); one from elsewhere (an edited store) that does is not sent as a header.
        if let lastEventID, !lastEventID.isEmpty,
            !lastEventID.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
        {
            request.headers.add(name: "Last-Event-ID", value: lastEventID)
        }
        let logger = self.logger
        var parts = http.stream(request)
        if logger.logLevel <= .info {
            let shown = Redaction.maskingSecrets(in: url)
            let headers = request.headers
            parts = parts.handleEvents(
                onSubscribe: {
                    logger.info("GET \(shown) (stream)\(lastEventID.map { " from event \($0)" } ?? "")")
                    logger.debug("GET \(shown) sending \(Self.sentHeaders(headers))")
                },
                onNext: { part in
                    guard case .head(let head) = part else { return }
                    logger.info("GET \(shown) -> \(head.status), streaming\(Self.interesting(head.headers))")
                },
                onFailed: { error in
                    logger.info("GET \(shown) (stream) -> \(error)")
                })
        }
        return
            parts
            .catch { error in
                guard let http = error as? HTTPError, http.kind != .idle else { throw error }
                throw FeedFailure(http, url: url)
            }
            // Read on a queue of its own: a fast stream's parsing runs beside the printing and
            // committing of what it sent before (on the work queue), on the other core.
            .observe(on: DispatchQueue(label: "feedcli.stream"))
    }

    package func webSocket(
        _ url: String, feed: FeedRegistration, greeting: [[UInt8]], idleTimeout: Duration,
        pongWait: Duration
    ) -> Observable<WebSocketPart> {
        var request = HTTPRequest(
            url: url, connectTimeout: min(options.timeout, .seconds(30)), maxBodySize: options.maxBodySize,
            idleTimeout: idleTimeout)
        // The token only to the feed URL's own origin, as for every request (no redirect is
        // followed by a connect-only connection).
        do throws(FeedFailure) { try authorize(&request, feed: feed) } catch { return .fail(error) }
        let logger = self.logger
        let shown = Redaction.maskingSecrets(in: url)
        return WebSocketStream.connection(
            url: url, headers: request.headers.fields, greeting: greeting, userAgent: HTTPClient.userAgent,
            connectTimeout: request.connectTimeout, idleTimeout: idleTimeout, pongWait: pongWait,
            maxMessageSize: options.maxBodySize
        )
        .handleEvents(
            onSubscribe: { logger.info("GET \(shown) (WebSocket)") },
            onNext: { part in
                guard case .head(let head) = part else { return }
                logger.info("GET \(shown) -> \(head.status)\(head.status == 101 ? ", connected" : "")")
            },
            onFailed: { error in
                logger.info("GET \(shown) (WebSocket) -> \(error)")
            }
        )
        .catch { error in
            guard let http = error as? HTTPError, http.kind != .idle else { throw error }
            throw FeedFailure(http, url: url)
        }
    }

    package func handOver<T: Sendable>(_ source: Observable<T>) -> Observable<T> {
        source.observe(on: workQueue)
    }

    package func handOver<T: Sendable>(_ source: Observable<T>, joiningWaiting join: @escaping @Sendable ([T]) -> T)
        -> Observable<T>
    {
        source.observe(on: workQueue, joiningWaiting: join)
    }

    /// Runs `work` on a concurrent queue of its own, then hands its result to `workQueue`, so
    /// the serial work queue never waits for it.
    package func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) -> Observable<T> {
        Observable<T>.deferred { .just(try work()) }
            .subscribe(on: Self.blockingQueue)
            .observe(on: workQueue)
    }

    /// Where pages wait for their jq workers: one thread each (at most `--jobs` at once).
    private static let blockingQueue = DispatchQueue(label: "feedcli.jq", attributes: .concurrent)

    /// Adds the feed's bearer token to `request` when its URL shares the feed URL's origin; a
    /// feed whose token variable is unset fails (78) before any request.
    private func authorize(_ request: inout HTTPRequest, feed: FeedRegistration) throws(FeedFailure) {
        if let variable = feed.tokenEnv, environment[variable]?.isEmpty != false {
            throw .configuration("feed \(feed.name) takes its token from $\(variable), which is not set")
        }
        if let token = token(for: feed), URLOrigin.sharesCredentials(request.url, with: feed.url) {
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
    }

    /// For a refusal (401, 403): which token was sent, and how to send the right one.
    private func tokenHint(for feed: FeedRegistration) -> String {
        if let variable = feed.tokenEnv { return "the token in $\(variable) was refused" }
        let change = "feedcli feeds set \(feed.name) --token-env VAR"
        return token(for: feed) == nil
            ? "no token was sent: \(change) sends the one in $VAR"
            : "the token in $FEEDCLI_TOKEN was refused; \(change) sends the feed one of its own"
    }

    /// The bearer token: the feed's own variable when it names one, else `FEEDCLI_TOKEN`.
    private func token(for feed: FeedRegistration) -> String? {
        let value = environment[feed.tokenEnv ?? "FEEDCLI_TOKEN"]
        return value?.isEmpty == false ? value : nil
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    package init(
        http: HTTPClient, workQueue: DispatchQueue, options: FetchOptions, scheduler: any Scheduler,
        random: @escaping @Sendable () -> Double, environment: [String: String], logger: Logger
    ) {
        self.http = http
        self.workQueue = workQueue
        self.options = options
        self.scheduler = scheduler
        self.random = random
        self.environment = environment
        self.logger = logger
    }
}
