import FeedBase
import FeedHTTP
import FeedModel
import FoundationEssentials

/// A Nostr relay (NIP-01, https://github.com/nostr-protocol/nips/blob/master/01.md): the client
/// sends `["REQ", id, filter]`; the relay answers `["EVENT", id, event]` for each stored event
/// that matches, `["EOSE", id]` when the stored ones are done, then new ones as they come;
/// `["NOTICE", text]` and `["CLOSED", id, reason]` are its words to the user.
///
/// The position is the newest `created_at` received (of events whose id checks out): each
/// connection asks `since` 10 minutes before it, as relays and clocks disagree by minutes.
package enum Nostr {
    /// The one subscription a connection holds.
    package static let subscriptionID = "feedcli"
    /// How far past the local clock a `created_at` may be and still become the position (s).
    package static let clockSkew: Int64 = 600

    /// How far before the position a connection asks from (seconds).
    package static let replayOverlap: Int64 = 600

    /// The connection's `REQ`: the feed's filter with `since` = the position minus the overlap,
    /// or, before anything is stored, now minus the feed's `--since`.
    package static func request(_ filter: NostrFilter, resumingFrom position: String?, now: Date) -> [UInt8] {
        let since: Int64
        if let stored = position.flatMap({ Int64($0) }) {
            // A stored position past the clock (from a feedcli that took one) asks from now.
            let position = min(stored, Int64(now.timeIntervalSince1970.rounded(.down)))
            let (value, overflow) = position.subtractingReportingOverflow(replayOverlap)
            since = overflow ? 0 : max(value, 0)
        } else {
            since = max(Int64(now.timeIntervalSince1970.rounded(.down)) - filter.since.components.seconds, 0)
        }
        var writer = JSONWriter()
        writer.raw("[\"REQ\",")
        writer.string(subscriptionID)
        writer.raw(",")
        var fields: [(String, (inout JSONWriter) -> Void)] = [
            ("kinds", { $0.array(filter.kinds) { writer, kind in writer.number(kind) } })
        ]
        if !filter.authors.isEmpty {
            fields.append(("authors", { $0.strings(filter.authors.map { $0.lowercased() }) }))
        }
        var tagNames: [String] = []
        for tag in filter.tags where !tagNames.contains(tag.name) { tagNames.append(tag.name) }
        for name in tagNames {
            let values = filter.tags.filter { $0.name == name }.map(\.value)
            fields.append(("#" + name, { $0.strings(values) }))
        }
        fields.append(("since", { $0.raw(String(since)) }))
        writer.object(fields)
        writer.raw("]")
        return writer.bytes
    }

    /// Why `event` is not one the feed's filter asks for (its kind, its author, its tags), which a
    /// relay may send all the same; nil when it is.
    package static func whyOutside(_ filter: NostrFilter, _ event: JSON) -> String? {
        if let kind = event["kind"]?.text.flatMap({ Int($0) }), !filter.kinds.isEmpty, !filter.kinds.contains(kind) {
            return "its kind \(kind) is not one the feed asks for"
        }
        if !filter.authors.isEmpty,
            !filter.authors.contains(where: { $0.lowercased() == event["pubkey"]?.string })
        {
            return "its author is not one the feed asks for"
        }
        let tags = event["tags"]?.array ?? []
        for name in Set(filter.tags.map(\.name)) {
            let wanted = filter.tags.filter { $0.name == name }.map(\.value)
            let has = tags.contains { tag in
                guard let parts = tag.array, parts.count >= 2, parts[0].string == name, let value = parts[1].string
                else { return false }
                return wanted.contains(value)
            }
            if !has { return "it has no #\(name) tag the feed asks for" }
        }
        return nil
    }

    /// Why `event` is not an event its id vouches for: its `id` must be the SHA-256 of its
    /// NIP-01 serialisation `[0,pubkey,created_at,kind,tags,content]`; nil when it is.
    package static func whyUnverified(_ event: JSON) -> String? {
        guard let id = event["id"]?.string else { return "it has no id" }
        guard let pubkey = event["pubkey"]?.string, let createdAt = event["created_at"],
            case .number(let created) = createdAt,
            let kind = event["kind"], case .number(let kindText) = kind, let tags = event["tags"]?.array,
            let content = event["content"]?.string
        else { return "it lacks pubkey, created_at, kind, tags or content" }
        var bytes: [UInt8] = Array("[0,".utf8)
        guard serialise(.string(pubkey), into: &bytes) else { return "its pubkey is not text" }
        bytes += Array(",\(created),\(kindText),".utf8)
        guard serialise(.array(tags), into: &bytes) else { return "its tags are not arrays of strings" }
        bytes.append(UInt8(ascii: ","))
        guard case .string = event["content"], serialise(.string(content), into: &bytes) else {
            return "its content is not text"
        }
        bytes.append(UInt8(ascii: "]"))
        guard let digest = Digest.sha256(bytes) else { return "SHA-256 (libcrypto) is not available to check its id" }
        let expected = Digest.hex(digest)
        if expected == id { return nil }
        // The same id in another case would be a second entry: NIP-01 ids are lowercase hex.
        return expected == id.lowercased()
            ? "its id is not in lowercase hex (NIP-01)" : "its id is not the SHA-256 of its content (NIP-01)"
    }

    /// `value` as NIP-01 serialises it (no white space; in strings only `\n`, `"`, `\\`, `\r`,
    /// `\t`, `\b` and `\f` escaped, everything else verbatim); false for what an event's
    /// serialisation cannot hold (a number or object inside tags, a string that is not exact).
    private static func serialise(_ value: JSON, into bytes: inout [UInt8]) -> Bool {
        switch value {
        case .string(let text):
            bytes.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
                case 0x22: bytes += [0x5C, 0x22]
                case 0x5C: bytes += [0x5C, 0x5C]
                case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
                case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
                case 0x08: bytes += [0x5C, UInt8(ascii: "b")]
                case 0x0C: bytes += [0x5C, UInt8(ascii: "f")]
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
            return true
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                guard serialise(element, into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
            return true
        default:
            return false
        }
    }

    /// The parts of an event its entry is made of.
    static let entryProjection = JSONProjection.members(["id", "pubkey", "created_at", "content"])

    /// The entry an event is (nil without an id).
    static func item(_ event: JSON, source: RawJSON) -> FeedItem? {
        guard let id = event["id"]?.string, !id.isEmpty else { return nil }
        let published = event["created_at"]?.text.flatMap { Int64($0) }.map {
            Timestamp.format(Date(timeIntervalSince1970: Double($0)))
        }
        return FeedItem(
            id: id, text: event["content"]?.string, author: event["pubkey"]?.string, url: "nostr:" + id,
            published: published, source: source)
    }
}

/// What a relay's messages are, one by one: entries (events whose ids check out), skipped
/// items (those whose ids do not, and messages that are not NIP-01), the end of the stored
/// events, and the relay's notices.
package struct NostrMessages: WebSocketMessageReading {
    /// The newest `created_at` received (the stored position, to begin with).
    private(set) var position: Int64?
    /// The feed's filter: an event outside it is a skipped item, whatever the relay sent.
    let filter: NostrFilter

    package init(position: String?, filter: NostrFilter = NostrFilter()) {
        self.position = position.flatMap { Int64($0) }
        self.filter = filter
    }

    package mutating func signals(of message: [UInt8], number: Int, now: Date) -> [StreamSignal] {
        let document: JSONParser.PageDocument
        do {
            document = try JSONParser.parsePage(Data(message), items: .topLevel, rest: .kindOnly)
        } catch {
            return [.skipped(line: number, why: "it is not JSON (\(error))")]
        }
        guard let parts = document.items, parts.count > 0, let type = parts.value(0).string else {
            return [.skipped(line: number, why: "it is not a NIP-01 message (an array that starts with its type)")]
        }
        func text(_ index: Int) -> String { index < parts.count ? parts.value(index).text ?? "" : "" }
        switch type {
        case "EVENT":
            guard parts.count >= 3, text(1) == Nostr.subscriptionID else {
                return [.ignored(why: "an event of another subscription", lastEventID: position.map(String.init))]
            }
            let event = parts.element(2)
            if let why = Nostr.whyUnverified(event.value) ?? Nostr.whyOutside(filter, event.value) {
                let id = event.value["id"]?.string.map { " " + Excerpt.of($0, limit: 64) } ?? ""
                return [.skipped(line: number, why: "event\(id): \(why)")]
            }
            var signals: [StreamSignal] = []
            if let created = event.value["created_at"]?.text.flatMap({ Int64($0) }) {
                // An event from past the clock is an entry as any, never the position: every
                // later REQ would ask `since` then, and a relay would send nothing again.
                if created <= Int64(now.timeIntervalSince1970.rounded(.down)) + Nostr.clockSkew {
                    position = max(position ?? created, created)
                } else {
                    signals.append(
                        .ignored(
                            why: "an event's created_at \(created) is past the clock: not a position to resume from",
                            lastEventID: position.map(String.init)))
                }
            }
            return [
                .item(
                    StreamItem(
                        json: Array(event.source.text.utf8), lastEventID: position.map(String.init), arrivedAt: now))
            ] + signals
        case "EOSE":
            return [.endOfReplay]
        case "NOTICE":
            return [.notice("the relay says: \(Excerpt.of(text(1), limit: 300))")]
        case "CLOSED":
            return [
                .closed(
                    why:
                        "the relay closed the subscription: \(Excerpt.of(text(2).isEmpty ? "no reason given" : text(2), limit: 300))"
                )
            ]
        default:
            // OK, AUTH, COUNT and what later NIPs add: not for a reader.
            return [
                .ignored(
                    why: "a relay's \(Excerpt.of(type, limit: 20)) message", lastEventID: position.map(String.init))
            ]
        }
    }
}

/// The `nostr` kind's entries: read natively (no jq), from events the reader verified.
package struct NostrFeed: PageFormat {
    package init() {}

    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        throw .badData("a Nostr feed is read from its relay's WebSocket, not from pages")
    }

    package func page(ofItems items: [[UInt8]], url: String) throws(FeedFailure) -> FeedPage {
        var read: [FeedItem] = []
        read.reserveCapacity(items.count)
        var skipped = SkippedItems()
        for (index, bytes) in items.enumerated() {
            if let document = try? JSONParser.parse(bytes, Nostr.entryProjection),
                let item = Nostr.item(document.value, source: document.source)
            {
                read.append(item)
            } else {
                skipped.add(SkippedItem(position: index + 1, page: url, why: "it is not a Nostr event with an id"))
            }
        }
        return FeedPage(items: PageItems(read), skipped: skipped)
    }
}
