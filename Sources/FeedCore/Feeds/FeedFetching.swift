import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials

/// How the feed kinds fetch: `FeedFetcher` (curl, retries, tokens, logging) in the program, a
/// table of canned responses in fast reactor tests.
public protocol FeedFetching: Sendable {
    /// A cold observable of one GET of a feed's URL: emits the response for 2xx, 304 and (when
    /// `acceptsNotFound`) 404, or fails with the feed's failure.
    func get(_ url: String, feed: FeedRegistration, validators: Validators?, acceptsNotFound: Bool) -> Observable<
        HTTPResponse
    >
    /// `get`, its outcome left where it arrives (the HTTP client's thread) rather than handed to
    /// the work queue: for bookkeeping that must go on while the work queue is busy
    /// (`InOrderRequests` starts the next request as soon as one answers), light work only.
    /// `handOver` brings results on to the work queue.
    func getAsAnswered(_ url: String, feed: FeedRegistration, acceptsNotFound: Bool) -> Observable<HTTPResponse>
    /// A cold observable of `work`, which may block for long (a page read by a jq worker, up to
    /// `--timeout`): run where it holds up no other feed, its result delivered where responses
    /// are.
    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) -> Observable<T>
    /// A cold observable of one streaming GET of a stream feed's URL (its head, then its bytes),
    /// sent with `Last-Event-ID` when one is given, dropped after `idleTimeout` without a byte.
    /// Its parts arrive on a serial queue of the stream's own, where the stream is read (parsed
    /// into items) beside the delivery of what it sent before; `handOver` brings what is read to
    /// where responses are.
    func stream(_ url: String, feed: FeedRegistration, lastEventID: String?, idleTimeout: Duration) -> Observable<
        HTTPStreamPart
    >
    /// A cold observable of one WebSocket connection to a stream feed's `ws://` or `wss://` URL
    /// (`WebSocketStream`), sending `greeting` once connected, pinged after `idleTimeout` of
    /// silence and ended when no frame follows for `pongWait` more (zero: silence ends it, as
    /// `sync` wants). Its parts arrive on the connection's own thread.
    func webSocket(
        _ url: String, feed: FeedRegistration, greeting: [[UInt8]], idleTimeout: Duration,
        pongWait: Duration
    ) -> Observable<WebSocketPart>
    /// `source`'s events, passed on from where responses are delivered (the run's serial work
    /// queue), in order.
    func handOver<T: Sendable>(_ source: Observable<T>) -> Observable<T>
    /// `handOver`, and the elements that wait for the work queue together cross as the one
    /// `join` makes of them: a stream read faster than it is stored is stored in fewer commits.
    func handOver<T: Sendable>(_ source: Observable<T>, joiningWaiting join: @escaping @Sendable ([T]) -> T)
        -> Observable<T>
}

extension FeedFetching {
    /// A fetcher without streams (reactor tests of polled feeds) fails every one.
    public func stream(_ url: String, feed: FeedRegistration, lastEventID: String?, idleTimeout: Duration)
        -> Observable<HTTPStreamPart>
    {
        .fail(FeedFailure.configuration("this fetcher does not read streams"))
    }

    /// A fetcher without streams fails every WebSocket connection too.
    public func webSocket(
        _ url: String, feed: FeedRegistration, greeting: [[UInt8]], idleTimeout: Duration,
        pongWait: Duration
    ) -> Observable<WebSocketPart> {
        .fail(FeedFailure.configuration("this fetcher does not read streams"))
    }

    /// `get` itself (a fetcher without queues of its own: tests).
    public func getAsAnswered(_ url: String, feed: FeedRegistration, acceptsNotFound: Bool) -> Observable<HTTPResponse>
    {
        get(url, feed: feed, validators: nil, acceptsNotFound: acceptsNotFound)
    }

    /// Passes `source` on where it runs (a fetcher without queues of its own: tests).
    public func handOver<T: Sendable>(_ source: Observable<T>) -> Observable<T> {
        source
    }

    /// Passes `source` on where it runs, as `handOver` does: nothing waits, so nothing is joined.
    public func handOver<T: Sendable>(_ source: Observable<T>, joiningWaiting join: @escaping @Sendable ([T]) -> T)
        -> Observable<T>
    {
        handOver(source)
    }

    /// Runs `work` where it is subscribed (a fetcher without queues of its own: tests).
    public func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) -> Observable<T> {
        .deferred { .just(try work()) }
    }

    package func get(_ url: String, feed: FeedRegistration, validators: Validators? = nil) -> Observable<HTTPResponse> {
        get(url, feed: feed, validators: validators, acceptsNotFound: false)
    }

    package func get(_ url: String, feed: FeedRegistration, acceptsNotFound: Bool) -> Observable<HTTPResponse> {
        get(url, feed: feed, validators: nil, acceptsNotFound: acceptsNotFound)
    }
}

/// The fetcher of commands that never fetch (`status`, `feeds list`): they then start no curl
/// and no worker thread at all.
package struct OfflineFetcher: FeedFetching {
    package func get(_ url: String, feed: FeedRegistration, validators: Validators?, acceptsNotFound: Bool)
        -> Observable<HTTPResponse>
    {
        .fail(FeedFailure.configuration("this command does not use the network"))
    }

    package init() {

    }
}
