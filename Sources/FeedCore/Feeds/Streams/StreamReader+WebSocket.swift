import FeedBase
import FeedHTTP
import FeedModel
import FeedReactive
import FoundationEssentials

extension StreamReader {
    /// The signals of one WebSocket connection's `parts` for a feed that stood at `position`:
    /// the upgrade's answer judged as a stream's head is (101 connected; 401/403 77; 404/410 69;
    /// 408/429/5xx reconnect; a redirect 69, not followed, naming where it points), then each
    /// group of messages that came together read by the kind's message reader, with the group's
    /// receipt.
    ///
    /// `endsAtReplay`: the read completes after the server's end of stored events (`sync` of a
    /// Nostr feed). A relay's `CLOSED` fails the read (69) after what came before it.
    package func read(
        webSocket parts: Observable<WebSocketPart>, position: String?, endsAtReplay: Bool
    ) -> Observable<StreamChunk> {
        Observable { observer in
            let state = Locked((reader: messageReader(position: position), count: 0, notices: NoticeLimit()))
            /// The line counting the notices not said, once the connection's read ends.
            @Sendable func sayUnsaid() {
                if let line = state.withLock({ $0.notices.unsaidLine() }) { observer.next(StreamChunk([line])) }
            }
            let shown = Redaction.maskingSecrets(in: url)
            return parts.subscribe { event in
                switch event {
                case .next(.head(let head)):
                    guard head.status == 101 else {
                        let location = head.headers["Location"].map { Redaction.maskingSecrets(in: $0) }
                        return observer.fail(
                            HTTPStatusFailure(
                                status: head.status, url: shown, retryAfter: head.retryAfter,
                                redirectsTo: (300...399).contains(head.status) ? location ?? "nowhere" : nil))
                    }
                    observer.next(StreamChunk([.connected(head)]))
                case .next(.messages(let messages, let receipt)):
                    let now = self.now()
                    let signals = state.withLock { state -> [StreamSignal] in
                        var signals: [StreamSignal] = []
                        for message in messages {
                            state.count += 1
                            signals += state.reader.signals(of: message, number: state.count, now: now)
                        }
                        return state.notices.limiting(signals)
                    }
                    deliver(
                        signals, receipt: receipt, endsAtReplay: endsAtReplay, to: observer, beforeTheEnd: sayUnsaid)
                case .next(.skipped(let why)):
                    let number = state.withLock { state -> Int in
                        state.count += 1
                        return state.count
                    }
                    observer.next(StreamChunk([.skipped(line: number, why: why)]))
                case .next(.closed(let code, let reason)):
                    let said =
                        code.map { " (\($0)\(reason.isEmpty ? "" : ": " + Excerpt.of(reason, limit: 120)))" } ?? ""
                    let why = "the server closed the connection\(said)"
                    // A normal close (1000) or a server going away (1001) is a stream's life
                    // (`-v`); any other code says something went wrong there: said on stderr.
                    let normal = code == nil || code == 1000 || code == 1001
                    let signals = state.withLock { state in
                        state.notices.limiting([normal ? .ignored(why: why, lastEventID: nil) : .notice(why)])
                    }
                    if !signals.isEmpty { observer.next(StreamChunk(signals)) }
                case .failed(let error):
                    sayUnsaid()
                    observer.fail(error)
                case .completed:
                    sayUnsaid()
                    observer.complete()
                }
            }
        }
    }

    /// Passes `signals` on, ending the read at a `CLOSED` (failed) or, with `endsAtReplay`, at
    /// the end of the stored events (completed), after what came before it.
    private func deliver(
        _ signals: [StreamSignal], receipt: StreamReceipt?, endsAtReplay: Bool, to observer: Observer<StreamChunk>,
        beforeTheEnd: () -> Void
    ) {
        let end = signals.firstIndex { signal in
            switch signal {
            case .closed: true
            case .endOfReplay: endsAtReplay
            default: false
            }
        }
        guard let end else {
            if !signals.isEmpty { observer.next(StreamChunk(signals, receipt: receipt)) }
            return
        }
        let before = Array(signals[..<end])
        if !before.isEmpty { observer.next(StreamChunk(before, receipt: receipt)) }
        beforeTheEnd()
        if case .closed(let why) = signals[end] {
            observer.fail(FeedFailure.unavailable("\(Redaction.maskingSecrets(in: url)): \(why)"))
        } else {
            observer.complete()
        }
    }

    /// The kind's reader of messages, from `position`.
    private func messageReader(position: String?) -> any WebSocketMessageReading {
        switch format {
        case .nostr: NostrMessages(position: position, filter: nostrFilter ?? NostrFilter())
        default: JetstreamMessages(position: position)
        }
    }
}

/// What a server may say on stderr over one connection: at most `said` notices (a relay's
/// `NOTICE`, a close code), then one line counting the rest, so that a flood of them cannot fill
/// a disk or a journal.
struct NoticeLimit: Sendable {
    static let said = 10
    private var notices = 0

    /// `signals` without the notices past the limit (counted).
    mutating func limiting(_ signals: [StreamSignal]) -> [StreamSignal] {
        signals.filter { signal in
            guard case .notice = signal else { return true }
            notices += 1
            return notices <= Self.said
        }
    }

    /// The line counting the notices not said; nil when none was held back (said once).
    mutating func unsaidLine() -> StreamSignal? {
        let unsaid = notices - Self.said
        guard unsaid > 0 else { return nil }
        notices = Self.said
        return .notice("and \(unsaid) more notice\(unsaid == 1 ? "" : "s") on this connection, not said")
    }
}
