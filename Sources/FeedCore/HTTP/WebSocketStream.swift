import FeedBase
import FeedModel
import FeedReactive
import FoundationEssentials
import Synchronization

/// What one WebSocket connection emits (`WebSocketStream.connection`).
public enum WebSocketPart: Sendable, Equatable {
    /// The upgrade's answer, once: 101 when connected, else the refusal's status and headers
    /// (401, 404, 429 with `Retry-After`: the stream's reader judges it as it judges an SSE
    /// response's head), after which the connection ends.
    case head(HTTPResponse)
    /// Text messages that came together, in order, with the receipt of their bytes
    /// (`StreamBacklog`: a stream read faster than it is delivered waits at the socket).
    case messages([[UInt8]], receipt: StreamReceipt? = nil)
    /// A message that is not an item, and why (binary, not UTF-8, over `--max-size`).
    case skipped(String)
    /// The server closed the connection with this code and reason (answered), after which the
    /// connection completes: an orderly end, which `sync` takes as the end of what the server
    /// had and a follow reconnects after.
    case closed(code: UInt16?, reason: String)
}

/// A WebSocket connection as a cold observable: subscribing connects (on a thread of its own,
/// since every call of a `WebSocketConnection` blocks), sends `greeting` (a Nostr `REQ`), then
/// emits what the server sends until it closes, breaks the protocol, or goes silent.
///
/// - A ping is answered with a pong at once; a close is answered, said (`.closed`) and completes
///   the connection; a frame no server may send is answered with a close of its code and fails
///   the connection (`.malformedReply`).
/// - No frame for `idleTimeout` sends a ping; no frame for 10 s more (the pong included) fails
///   with `HTTPError.idle` (a follow reconnects).
/// - Disposing closes the connection (1000) and ends the thread; nothing is emitted after.
package enum WebSocketStream {
    /// How long after the idle ping a pong (or any frame) must come (the contract's 10 s).
    package static let pongWait: Duration = .seconds(10)
    /// How long one wait for bytes lasts before the thread looks whether it was disposed.
    private static let slice: Duration = .milliseconds(200)

    package static func connection(
        url: String, headers: [(name: String, value: String)] = [], greeting: [[UInt8]] = [], userAgent: String,
        connectTimeout: Duration, idleTimeout: Duration, pongWait: Duration = pongWait, maxMessageSize: Int
    ) -> Observable<WebSocketPart> {
        Observable { observer in
            let disposed = Mutex(false)
            let backlog = StreamBacklog()
            let isDisposed = { @Sendable in disposed.withLock { $0 } }
            let failure = DetachedThread.start(named: "feedcli-ws") {
                run(
                    url: url, headers: headers, greeting: greeting, userAgent: userAgent,
                    connectTimeout: connectTimeout,
                    idle: (idleTimeout, pongWait), maxMessageSize: maxMessageSize, backlog: backlog,
                    isDisposed: isDisposed,
                    observer: observer)
            }
            if let failure {
                observer.fail(HTTPError(.other, message: "no thread for the connection (error \(failure))"))
            }
            return Disposables.create {
                disposed.withLock { $0 = true }
                backlog.abandon()
            }
        }
    }

    /// The connection's thread.
    private static func run(
        url: String, headers: [(name: String, value: String)], greeting: [[UInt8]], userAgent: String,
        connectTimeout: Duration,
        idle: (timeout: Duration, pongWait: Duration), maxMessageSize: Int, backlog: StreamBacklog,
        isDisposed: @Sendable () -> Bool,
        observer: Observer<WebSocketPart>
    ) {
        let connection: WebSocketConnection
        do {
            connection = try WebSocketConnection(
                url: url, headers: headers, userAgent: userAgent, connectTimeout: connectTimeout,
                maxMessageSize: maxMessageSize)
        } catch let refused as WebSocketConnection.Refused {
            guard refused.status != 101 else { return observer.fail(HTTPError(.malformedReply, message: refused.why)) }
            let answer = HTTPHeaders(refused.headers)
            let retryAfter = answer["Retry-After"].flatMap { RetryAfter.parse($0, now: Date()) }
            observer.next(
                .head(HTTPResponse(status: refused.status, headers: answer, effectiveURL: url, retryAfter: retryAfter)))
            return observer.complete()
        } catch {
            return observer.fail(error)
        }
        do {
            observer.next(.head(HTTPResponse(status: 101, effectiveURL: url)))
            for message in greeting { try connection.send(.text, payload: message) }
            var lastFrame = ContinuousClock.now
            var pinged = false
            // A follow proves a silent connection with a ping (its pong counts); a sync ends
            // after `idle.timeout` without an event, however many pings and pongs came.
            let proves = idle.pongWait > .zero
            while !isDisposed() {
                // Nothing more is read from the server while the reader is a backlog behind (a
                // huge message still being stored): the next one waits in the socket, not in
                // memory beside it. The wait is the reader's, not the server's silence.
                if backlog.pending > StreamBacklog.limit {
                    guard backlog.waitForRoom() else { break }
                    lastFrame = ContinuousClock.now
                }
                let events = try connection.receive(waitingUpTo: slice)
                if !proves {
                    let delivery = try deliver(events, connection: connection, backlog: backlog, observer: observer)
                    if delivery == .closedByServer { return observer.complete() }
                    if delivery == .readerGone { break }
                    // Quiet counts from the delivery's end: its wait for the reader (a huge
                    // message before it still being stored) is not the server's silence.
                    if events.contains(where: \.isEvent) { lastFrame = ContinuousClock.now }
                    if ContinuousClock.now - lastFrame >= idle.timeout {
                        throw HTTPError(.idle, message: "no event for \(idle.timeout.milliseconds) ms")
                    }
                    continue
                }
                guard !events.isEmpty else {
                    let quiet = ContinuousClock.now - lastFrame
                    if !pinged, quiet >= idle.timeout {
                        try connection.send(.ping, payload: [])
                        pinged = true
                    } else if pinged, quiet >= idle.timeout + idle.pongWait {
                        throw HTTPError(
                            .idle,
                            message: "no frame for \(idle.timeout.milliseconds) ms, nor a pong for "
                                + "\(idle.pongWait.milliseconds) ms more")
                    }
                    continue
                }
                lastFrame = ContinuousClock.now
                pinged = false
                let delivery = try deliver(events, connection: connection, backlog: backlog, observer: observer)
                if delivery == .closedByServer { return observer.complete() }
                if delivery == .readerGone { break }
            }
            try? connection.close(code: 1000, reason: "")
        } catch {
            // After disposal nothing more is said (Observable's grammar drops it anyway).
            if !isDisposed() { observer.fail(error) }
        }
    }

    /// How a delivery of events ended.
    private enum Delivery {
        case delivered
        /// The reader has gone (the backlog abandoned).
        case readerGone
        /// The server closed the connection (answered, and said as `.closed`).
        case closedByServer
    }

    /// Hands `events` on in order: texts together, a skipped message in its place, a ping
    /// answered, a close answered and said. A violation is answered and thrown, after what came
    /// before it.
    private static func deliver(
        _ events: [WebSocketFraming.Event], connection: WebSocketConnection, backlog: StreamBacklog,
        observer: Observer<WebSocketPart>
    ) throws -> Delivery {
        var texts: [[UInt8]] = []
        func flush() -> Bool {
            guard !texts.isEmpty else { return true }
            defer { texts = [] }
            guard backlog.waitForRoom() else { return false }
            observer.next(.messages(texts, receipt: backlog.handOn(texts.reduce(0) { $0 + $1.count })))
            return true
        }
        for event in events {
            switch event {
            case .text(let bytes):
                texts.append(bytes)
            case .ping(let payload):
                try connection.send(.pong, payload: payload)
            case .pong:
                break
            case .binary(let bytes):
                guard flush() else { return .readerGone }
                observer.next(.skipped("a binary message of \(bytes.count) bytes (feeds are JSON text)"))
            case .invalidText(let size):
                guard flush() else { return .readerGone }
                observer.next(.skipped("a text message of \(size) bytes that is not UTF-8"))
            case .oversized(let size):
                guard flush() else { return .readerGone }
                observer.next(.skipped("a message of \(size) bytes, over --max-size"))
            case .close(let code, let reason):
                guard flush() else { return .readerGone }
                try? connection.close(code: code ?? 1000, reason: "")
                observer.next(.closed(code: code, reason: reason))
                return .closedByServer
            case .violation(let code, let why):
                guard flush() else { return .readerGone }
                try? connection.close(code: code, reason: why)
                throw HTTPError(.malformedReply, message: "the server broke the WebSocket protocol: \(why)")
            }
        }
        return flush() ? .delivered : .readerGone
    }
}

extension WebSocketFraming.Event {
    /// Whether the frame carries something of the stream (a message, a close), not the
    /// connection's upkeep (a ping, a pong).
    fileprivate var isEvent: Bool {
        switch self {
        case .ping, .pong: false
        default: true
        }
    }
}
