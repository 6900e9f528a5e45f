import Dispatch
import FeedModel
import FeedReactive
import FoundationEssentials

/// An HTTP client on libcurl whose requests are cold observables.
///
/// `get(_:)` sends nothing until subscription, and sends again for each subscription. Disposing
/// the subscription aborts the transfer promptly (the worker is woken, not polled). Outcomes arrive
/// on the client's worker thread: observers should hand heavy work elsewhere rather than block it,
/// since every transfer of this client shares that thread.
///
/// One client reuses connections across its requests and runs at most `maxConnectionsPerHost`
/// transfers per host at once; more wait their turn. Call `shutdown()` before the process exits so
/// every curl handle is freed while the TLS library is still intact; it is also called on deinit.
public final class HTTPClient: Sendable {
    public static let userAgent = "feedcli/\(FeedcliVersion.current)"

    private let worker: CurlWorker

    public init(userAgent: String = HTTPClient.userAgent, maxConnectionsPerHost: Int = 4) throws(HTTPError) {
        worker = try CurlWorker(userAgent: userAgent, maxConnectionsPerHost: maxConnectionsPerHost)
    }

    deinit { worker.shutdown() }

    /// A cold observable of one GET: on subscription it starts the transfer and later emits one
    /// response (any status) and completes, or fails with `HTTPError`.
    public func get(_ request: HTTPRequest) -> Observable<HTTPResponse> {
        Observable { [worker] observer in
            guard let id = worker.start(request, delivery: .whole(observer)) else {
                observer.fail(CurlWorker.shutDown)
                return Disposables.empty
            }
            return Disposables.create { worker.cancel(id) }
        }
    }

    /// A cold observable of one streaming GET (a `text/event-stream`, NDJSON): on subscription
    /// it starts the transfer, emits the head (any status) and then the body's bytes as they
    /// arrive; completes when the server ends the response, fails with `HTTPError` when the
    /// connection breaks, or with `.idle` after `request.idleTimeout` without a byte.
    /// Disposing aborts it. The bytes come on the worker thread: pass them on quickly.
    public func stream(_ request: HTTPRequest) -> Observable<HTTPStreamPart> {
        var request = request
        if request.idleTimeout == nil { request.idleTimeout = .seconds(90) }
        return Observable { [worker, request] observer in
            let backlog = StreamBacklog()
            guard let id = worker.start(request, delivery: .stream(observer, backlog)) else {
                observer.fail(CurlWorker.shutDown)
                return Disposables.empty
            }
            return Disposables.create {
                backlog.abandon()  // a worker waiting for this reader stops waiting
                worker.cancel(id)
            }
        }
    }

    /// Aborts every transfer and frees every curl handle, and returns when that is done, for
    /// every caller. Idempotent.
    public func shutdown() { worker.shutdown() }

    /// Whether `shutdown` has finished freeing every handle.
    package var hasShutDown: Bool { worker.hasFinished }
}
