import FeedBase
import FeedHTTP
import FeedModel
import FoundationEssentials

/// Bluesky's Jetstream (`wss://jetstream2.us-east.bsky.network/subscribe`): one JSON event a
/// text message, `{did, time_us, kind, commit?|identity?|account?}`
/// (https://github.com/bluesky-social/jetstream#consuming-jetstream).
///
/// A `commit` event that creates a record is an entry; every other event (deletes, updates,
/// `identity`, `account`) is not, but its `time_us` moves the position all the same. The
/// position is the largest `time_us` received, not the last: events do not arrive in `time_us`
/// order (in Jetstream's own capture, 42 of 151 adjacent pairs go down), so each connection asks
/// from 5 s before it (`cursor`) and the store drops what it already holds by id.
package enum Jetstream {
    /// How far before the position a connection asks the server to replay from (µs).
    package static let replayOverlap: Int64 = 5_000_000

    /// How far past the local clock a `time_us` may be and still become the position (µs): an
    /// event from the far future would make every later connection ask from there, and the
    /// server live-tails from a future cursor (a gap after it would never be said).
    package static let clockSkew: Int64 = 600_000_000

    /// The latest position an event received at `now` may set.
    package static func latestPosition(at now: Date) -> Int64 {
        Int64((now.timeIntervalSince1970 * 1_000_000).rounded(.down)) + clockSkew
    }

    /// The collection a feed follows when neither `--collection` nor its URL names one.
    package static let defaultCollection = "app.bsky.feed.post"

    /// The URL a connection asks: the feed's own, with `cursor` = the position minus the
    /// overlap when there is a position (none: from now on). A stored position past the clock
    /// (from a feedcli that took one) asks from now.
    package static func url(_ feedURL: String, resumingFrom position: String?, now: Date) -> String {
        guard let stored = position.flatMap({ Int64($0) }) else { return feedURL }
        let position = min(stored, latestPosition(at: now) - clockSkew)
        let (cursor, overflow) = position.subtractingReportingOverflow(replayOverlap)
        return URLQuery.setting("cursor", to: String(overflow ? 0 : max(cursor, 0)), in: feedURL)
    }

    /// The feed URL `feeds add` registers: `url` with each `--did` as `wantedDids` and each
    /// `--collection` as `wantedCollections`, and the default collection when none is named.
    package static func feedURL(_ url: String, dids: [String], collections: [String]) -> String {
        var url = url
        for did in dids { url = appending("wantedDids", did, to: url) }
        for collection in collections { url = appending("wantedCollections", collection, to: url) }
        if URLQuery.value(of: "wantedCollections", in: url) == nil {
            url = appending("wantedCollections", defaultCollection, to: url)
        }
        return url
    }

    /// `url` with one more `name=value` (Jetstream repeats a parameter for several values).
    private static func appending(_ name: String, _ value: String, to url: String) -> String {
        let fragment = url.firstIndex(of: "#").map { String(url[$0...]) } ?? ""
        let base = String(url.dropLast(fragment.count))
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + URLQuery.encode(name) + "=" + URLQuery.encode(value) + fragment
    }

    /// The parts of an event the reader looks at.
    static let eventProjection = JSONProjection.parts([
        "did": .whole, "time_us": .whole, "kind": .whole,
        "commit": .members(["operation", "collection", "rkey"]),
    ])

    /// The parts of an entry's event its fields come from.
    static let entryProjection = JSONProjection.parts([
        "did": .whole, "time_us": .whole,
        "commit": .parts([
            "operation": .whole, "collection": .whole, "rkey": .whole, "record": .members(["text", "createdAt"]),
        ]),
    ])

    /// The entry an event that creates a record is (nil for any other: the reader passed only
    /// those, and a damaged one is not an entry).
    static func item(_ event: JSON, source: RawJSON) -> FeedItem? {
        guard event[["commit", "operation"]]?.string == "create", let did = event["did"]?.string,
            let collection = event[["commit", "collection"]]?.string,
            let rkey = event[["commit", "rkey"]]?.string, !did.isEmpty, !collection.isEmpty, !rkey.isEmpty
        else { return nil }
        let record = event[["commit", "record"]]
        let published =
            Timestamp.normalize(record?["createdAt"]?.string)
            ?? event["time_us"]?.text.flatMap { Int64($0) }.map {
                Timestamp.format(Date(timeIntervalSince1970: Double($0) / 1_000_000))
            }
        let url = collection == "app.bsky.feed.post" ? "https://bsky.app/profile/\(did)/post/\(rkey)" : nil
        return FeedItem(
            id: "at://\(did)/\(collection)/\(rkey)", text: record?["text"]?.string, author: did, url: url,
            published: published, source: source)
    }
}

/// What a Jetstream connection's messages are, one by one: entries, other events (with the
/// position after them), and messages that are not events (named skipped items).
package struct JetstreamMessages: WebSocketMessageReading {
    /// The largest `time_us` received (the stored position, to begin with).
    private(set) var position: Int64?
    /// The position the connection resumed from: its first event, when newer, says the replay
    /// did not reach back to it.
    private let resumedFrom: Int64?
    private var sawEvent = false

    package init(position: String?) {
        self.position = position.flatMap { Int64($0) }
        resumedFrom = self.position
    }

    package mutating func signals(of message: [UInt8], number: Int, now: Date) -> [StreamSignal] {
        let event: JSON
        do {
            event = try JSONParser.value(of: message, Jetstream.eventProjection)  // in place: no copy of the message
        } catch {
            return [.skipped(line: number, why: "it is not JSON (\(error))")]
        }
        guard case .object = event, let time = event["time_us"]?.text.flatMap({ Int64($0) }) else {
            return [.skipped(line: number, why: "it is not a Jetstream event (no time_us)")]
        }
        guard time <= Jetstream.latestPosition(at: now) else {
            // An entry as any, but never the position (`-v` names it).
            return Self.signals(ofEvent: event, message: message, position: position.map(String.init), now: now) + [
                .ignored(
                    why: "an event's time_us \(Self.shown(time)) is past the clock: not a position to resume from",
                    lastEventID: position.map(String.init))
            ]
        }
        var signals: [StreamSignal] = []
        if !sawEvent, let resumedFrom, time > resumedFrom {
            signals.append(
                .notice(
                    "the first event replayed (\(Self.shown(time))) is newer than the stored position "
                        + "(\(Self.shown(resumedFrom))): if the server's replay window no longer reaches back "
                        + "that far, the events between are missing"))
        }
        sawEvent = true
        position = max(position ?? time, time)
        return signals + Self.signals(ofEvent: event, message: message, position: position.map(String.init), now: now)
    }

    /// An event as an entry (a commit that creates a record) or as something that is not one,
    /// with the position after it.
    private static func signals(ofEvent event: JSON, message: [UInt8], position: String?, now: Date) -> [StreamSignal] {
        let kind = event["kind"]?.string ?? "?"
        let operation = event[["commit", "operation"]]?.string
        if kind == "commit", operation == "create", event[["commit", "collection"]]?.string != nil,
            event[["commit", "rkey"]]?.string != nil,
            event["did"]?.string != nil
        {
            return [.item(StreamItem(json: message, lastEventID: position, arrivedAt: now))]
        }
        let what =
            kind == "commit"
            ? "a commit that \(operation.map { $0 + "s" } ?? "does something unknown to")"
                + " \(event[["commit", "collection"]]?.string ?? "a record")" : "an \(kind) event"
        return [.ignored(why: "\(what) of \(event["did"]?.string ?? "no one")", lastEventID: position)]
    }

    /// A `time_us` as the time it is.
    private static func shown(_ time: Int64) -> String {
        Timestamp.format(Date(timeIntervalSince1970: Double(time) / 1_000_000))
    }
}

/// The `jetstream` kind's entries: read natively (no jq), from events the reader passed.
package struct JetstreamFeed: PageFormat {
    package init() {}

    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        throw .badData("a Jetstream feed is read from its WebSocket stream, not from pages")
    }

    package func page(ofItems items: [[UInt8]], url: String) throws(FeedFailure) -> FeedPage {
        var read: [FeedItem] = []
        read.reserveCapacity(items.count)
        var skipped = SkippedItems()
        for (index, bytes) in items.enumerated() {
            if let document = try? JSONParser.parse(bytes, Jetstream.entryProjection),
                let item = Jetstream.item(document.value, source: document.source)
            {
                read.append(item)
            } else {
                skipped.add(
                    SkippedItem(position: index + 1, page: url, why: "it is not an event that creates a record"))
            }
        }
        return FeedPage(items: PageItems(read), skipped: skipped)
    }
}
