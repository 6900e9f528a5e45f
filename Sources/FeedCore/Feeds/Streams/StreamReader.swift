import FeedBase
import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials

/// Cuts one connection's response into `StreamSignal`s: checks its head (status and
/// `Content-Type`), then parses its bytes (Server-Sent Events or JSON lines) into items.
///
/// A head that is not a stream fails as the contract says: 204 is `StreamEnded` (the server ended
/// the stream for good), 401/403 77, 404/410 and other refusals 69, 408/429/5xx a temporary
/// failure (reconnect), a 2xx of another `Content-Type` 65.
package struct StreamReader: Sendable {
    package var format: StreamFormat
    /// An SSE feed's event types (`--event`); nil: every event whose data is a JSON object.
    package var eventTypes: [String]?
    /// The largest event (or line) read; larger ones are ignored (`--max-size`).
    package var maxEventSize: Int
    package var url: String
    package var now: @Sendable () -> Date
    /// A Nostr feed's filter, which each event is checked against again (a relay may send what
    /// the `REQ` did not ask for).
    package var nostrFilter: NostrFilter?

    package init(
        format: StreamFormat, eventTypes: [String]?, maxEventSize: Int, url: String, now: @escaping @Sendable () -> Date
    ) {
        self.format = format
        self.eventTypes = eventTypes
        self.maxEventSize = maxEventSize
        self.url = url
        self.now = now
    }

    /// The signals of `parts`, one connection's response, for a stream that stood at
    /// `lastEventID`: those of each chunk of bytes together, as they arrived (what came together
    /// is delivered together; what comes alone, at once), with the chunk's receipt.
    package func read(_ parts: Observable<HTTPStreamPart>, lastEventID: String?) -> Observable<StreamChunk> {
        Observable { observer in
            let state = Locked(ReadState(format: format, maxEventSize: maxEventSize, lastEventID: lastEventID ?? ""))
            return parts.subscribe { event in
                switch event {
                case .next(.head(let head)):
                    do {
                        try check(head)
                        observer.next(StreamChunk([.connected(head)]))
                    } catch {
                        observer.fail(error)
                    }
                case .next(.bytes(let bytes, let receipt)):
                    let signals = state.withLock { $0.signals(of: bytes, reader: self) }
                    guard !signals.isEmpty else { return }
                    var chunk = StreamChunk(signals, receipt: receipt)
                    let itemBytes = signals.reduce(0) { bytes, signal in
                        if case .item(let item) = signal { bytes + item.json.count } else { bytes }
                    }
                    if let receipt, itemBytes > bytes.count {
                        chunk.receipts.append(receipt.forMore(itemBytes - bytes.count))
                    }
                    observer.next(chunk)
                case .failed(let error):
                    observer.fail(error)
                case .completed:
                    observer.complete()
                }
            }
        }
    }

    private func check(_ head: HTTPResponse) throws {
        let shown = Redaction.maskingSecrets(in: url)
        if head.status == 204 { throw StreamEnded(url: shown) }
        guard (200...299).contains(head.status) else {
            throw HTTPStatusFailure(status: head.status, url: shown, retryAfter: head.retryAfter)
        }
        let contentType = head.headers["Content-Type"]
        guard format.accepts(contentType: contentType) else {
            let expected = format == .serverSentEvents ? "text/event-stream" : "application/x-ndjson"
            throw FeedFailure.badData(
                "\(shown) answered \(contentType.map { "Content-Type \($0)" } ?? "no Content-Type"), not \(expected)")
        }
    }

    /// Whether an SSE event of `type` is wanted.
    fileprivate func wants(type: String) -> Bool {
        eventTypes.map { $0.contains(type) } ?? true
    }

    /// Why `json` is not one JSON object (what an item is); nil when it is one. Checked whole,
    /// but nothing of it built (the page read of its batch does that).
    fileprivate static func whyNotAnObject(_ json: [UInt8]) -> String? {
        do {
            let value = try JSONParser.value(of: json, .members([]))
            if case .object = value { return nil }
            return "it is \(value.kindDescription), not a JSON object"
        } catch {
            return "it is not JSON (\(error))"
        }
    }
}

/// The parser of one connection, with what it has seen.
private struct ReadState: Sendable {
    var events: ServerSentEventParser
    var lines: JSONLineParser
    let format: StreamFormat
    var retry: Int?
    /// The JSON lines read on this connection (a skipped line is named by its number).
    var lineNumber = 0

    init(format: StreamFormat, maxEventSize: Int, lastEventID: String) {
        self.format = format
        events = ServerSentEventParser(maxEventSize: maxEventSize, lastEventID: lastEventID)
        lines = JSONLineParser(maxLineSize: maxEventSize)
    }

    mutating func signals(of bytes: [UInt8], reader: StreamReader) -> [StreamSignal] {
        var signals: [StreamSignal] = []
        let now = reader.now()
        switch format {
        case .serverSentEvents:
            for output in events.parse(bytes) {
                let lastEventID = events.lastEventID.isEmpty ? nil : events.lastEventID
                switch output {
                case .oversized:
                    signals.append(.ignored(why: "an event larger than --max-size", lastEventID: lastEventID))
                case .event(let event):
                    let eventID = event.lastEventID.isEmpty ? nil : event.lastEventID
                    let data = Array(event.data.utf8)
                    if !reader.wants(type: event.type) {
                        signals.append(.ignored(why: "a \(event.type) event", lastEventID: eventID))
                    } else if let why = StreamReader.whyNotAnObject(data) {
                        signals.append(
                            .ignored(
                                why: "a \(event.type) event whose data is not an item: \(why)", lastEventID: eventID))
                    } else {
                        signals.append(.item(StreamItem(json: data, lastEventID: eventID, arrivedAt: now)))
                    }
                }
            }
            if let retry = events.retry, retry != self.retry {
                self.retry = retry
                signals.append(.retry(.milliseconds(retry)))
            }
        case .jsonLines:
            for output in lines.parse(bytes) {
                lineNumber += 1
                switch output {
                case .oversized:
                    signals.append(.skipped(line: lineNumber, why: "it is larger than --max-size"))
                case .line(let line):
                    if let why = StreamReader.whyNotAnObject(line) {
                        signals.append(.skipped(line: lineNumber, why: why))
                    } else {
                        signals.append(.item(StreamItem(json: line, lastEventID: nil, arrivedAt: now)))
                    }
                }
            }
        case .jetstream, .nostr:
            // Messages, not bytes: read by `read(webSocket:position:endsAtReplay:)`.
            break
        }
        return signals
    }
}
