import Dispatch
import FeedModel
import FeedReactive
import FoundationEssentials
import Synchronization

/// An HTTP client on libcurl whose requests are cold observables.
///
/// `get(_:)` sends nothing until subscription, and sends again for each subscription. Disposing
/// the subscription aborts the transfer promptly (the worker is woken, not polled). Outcomes arrive
/// on the client's worker thread: observers should hand heavy work elsewhere rather than block it,
/// since every transfer of this client shares that thread.
///
/// One client reuses connections across its requests and runs at most `maxConnectionsPerHost`
/// requests per host at once; more wait their turn. Streams are not requests in flight: they run
/// on a worker of their own (made at the first stream), with a connection each whatever their
/// host, so six streams of one server are six connections and a polled feed of that server is
/// still fetched beside them. Call `shutdown()` before the process exits so every curl handle is
/// freed while the TLS library is still intact; it is also called on deinit.
public final class HTTPClient: Sendable {
    public static let userAgent = "feedcli/\(FeedcliVersion.current)"

    private let worker: CurlWorker
    /// The streams' worker, once a stream was asked for (nil before; shut down with the client).
    private let streams = Mutex<(worker: CurlWorker?, isShutDown: Bool)>((nil, false))
    private let userAgent: String

    public init(userAgent: String = HTTPClient.userAgent, maxConnectionsPerHost: Int = 4) throws(HTTPError) {
        worker = try CurlWorker(userAgent: userAgent, maxConnectionsPerHost: maxConnectionsPerHost)
        self.userAgent = userAgent
    }

    deinit { shutdown() }

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
        return Observable { [self, request] observer in
            let backlog = StreamBacklog()
            let worker: CurlWorker
            switch streamWorker() {
            case .success(let made): worker = made
            case .failure(let error):
                observer.fail(error)
                return Disposables.empty
            }
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

    /// The streams' worker, made at the first stream (no cap per host: a stream is a connection
    /// of its own); why not, once the client shut down or when it cannot be made.
    private func streamWorker() -> Result<CurlWorker, HTTPError> {
        streams.withLock { streams in
            guard !streams.isShutDown else { return .failure(CurlWorker.shutDown) }
            if let worker = streams.worker { return .success(worker) }
            do throws(HTTPError) {
                let worker = try CurlWorker(userAgent: userAgent, maxConnectionsPerHost: 0)
                streams.worker = worker
                return .success(worker)
            } catch {
                return .failure(error)
            }
        }
    }

    /// Aborts every transfer and frees every curl handle, and returns when that is done, for
    /// every caller. Idempotent.
    public func shutdown() {
        let streamWorker = streams.withLock { streams in
            streams.isShutDown = true
            return streams.worker
        }
        streamWorker?.shutdown()
        worker.shutdown()
    }

    /// Whether `shutdown` has finished freeing every handle.
    package var hasShutDown: Bool {
        worker.hasFinished && (streams.withLock { $0.worker }?.hasFinished ?? true)
    }
}
