import FeedTesting
import Foundation
import Testing

@testable import FeedHTTP
@testable import FeedKinds
@testable import FeedModel

/// A Nostr relay's messages as the `nostr` kind reads them, on real events
/// (`Fixtures/streams/nostr-events.jsonl`, the first 200 of nostrify's fixtures; PROVENANCE.md).
@Suite("Nostr relay messages")
struct NostrTests {
    /// The clock the readers run at: after every event of the captures (an event past the clock
    /// is never a position).
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let events: [String] = {
        let url = Fixtures.root.appendingPathComponent("streams/nostr-events.jsonl")
        return ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }()

    private func message(_ event: String, subscription: String = Nostr.subscriptionID) -> [UInt8] {
        Array(#"["EVENT","\#(subscription)",\#(event)]"#.utf8)
    }

    private func read(_ messages: [[UInt8]], from position: String? = nil) -> (
        signals: [StreamSignal], reader: NostrMessages
    ) {
        // Every kind: the capture holds reactions and others beside text notes.
        var reader = NostrMessages(position: position, filter: NostrFilter(kinds: []))
        var signals: [StreamSignal] = []
        for (index, message) in messages.enumerated() {
            signals += reader.signals(of: message, number: index + 1, now: Self.now)
        }
        return (signals, reader)
    }

    @Test func everyRealEventsIDChecksOut() throws {
        #expect(events.count == 200)
        let (signals, reader) = read(events.map { message($0) })
        let items = signals.compactMap { if case .item(let item) = $0 { item } else { nil } }
        #expect(items.count == 200, "\(signals.filter { if case .item = $0 { false } else { true } })")
        let newest = try events.map {
            try #require(
                (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["created_at"] as? Int)
        }.max()
        #expect(reader.position == newest.map(Int64.init))
    }

    /// A plain event whose id checks out: `created_at` as given.
    private func event(createdAt: Int64, content: String) throws -> String {
        let pubkey = String(repeating: "ab", count: 32)
        let serialised = #"[0,"\#(pubkey)",\#(createdAt),1,[],"\#(content)"]"#
        let id = Digest.hex(try #require(Digest.sha256(Array(serialised.utf8))))
        return
            #"{"id":"\#(id)","pubkey":"\#(pubkey)","created_at":\#(createdAt),"kind":1,"tags":[],"content":"\#(content)","sig":"00"}"#
    }

    /// One event from the far future (year 9999) must not blind the feed: it is an entry, but
    /// never the position every later `REQ` asks `since` from; a position stored past the clock
    /// (by a feedcli that took one) asks from now.
    @Test func anEventFromTheFarFutureIsAnEntryButNeverThePosition() throws {
        let now = Int64(Self.now.timeIntervalSince1970)
        let (signals, reader) = read([
            message(try event(createdAt: now - 60, content: "a minute ago")),
            message(try event(createdAt: 253_402_300_799, content: "from the year 9999")),
        ])
        #expect(signals.filter { if case .item = $0 { true } else { false } }.count == 2, "\(signals)")
        #expect(reader.position == now - 60, "the far-future event moved nothing")
        let request = String(
            decoding: Nostr.request(NostrFilter(), resumingFrom: "253402300199", now: Self.now), as: UTF8.self)
        #expect(request.contains(#""since":\#(now - 600)"#), "\(request)")
    }

    /// NIP-01 ids are lowercase hex: the same event resent with its id in upper case is a
    /// skipped item, not a second entry.
    @Test func anIDInUpperCaseIsASkippedItem() throws {
        let original = try event(createdAt: Int64(Self.now.timeIntervalSince1970), content: "once")
        let id = try #require(original.firstMatch(of: /"id":"([0-9a-f]+)"/)?.1)
        let shouted = original.replacingOccurrences(of: String(id), with: id.uppercased())
        let (signals, _) = read([message(original), message(shouted)])
        #expect(signals.filter { if case .item = $0 { true } else { false } }.count == 1)
        guard case .skipped(_, let why)? = signals.last else {
            Issue.record("\(signals)")
            return
        }
        #expect(why.hasSuffix("its id is not in lowercase hex (NIP-01)"), "\(why)")
    }

    /// A relay may send what the `REQ` did not ask for: an event of another kind, another
    /// author, or without the tag the feed asks for is a skipped item, never an entry.
    @Test func anEventOutsideTheFeedsFilterIsASkippedItem() throws {
        let event = try event(createdAt: Int64(Self.now.timeIntervalSince1970), content: "filtered")
        func why(_ filter: NostrFilter) -> String? {
            var reader = NostrMessages(position: nil, filter: filter)
            let signals = reader.signals(of: message(event), number: 1, now: Self.now)
            if case .skipped(_, let why)? = signals.first { return why }
            return nil
        }
        #expect(why(NostrFilter()) == nil, "kind 1, anyone's, no tag asked: an entry")
        #expect(why(NostrFilter(kinds: [7]))?.hasSuffix("its kind 1 is not one the feed asks for") == true)
        #expect(
            why(NostrFilter(authors: [String(repeating: "cd", count: 32)]))?.hasSuffix(
                "its author is not one the feed asks for") == true)
        #expect(why(NostrFilter(authors: [String(repeating: "AB", count: 32)])) == nil, "keys in any case")
        #expect(
            why(NostrFilter(tags: [.init(name: "t", value: "nostr")]))?.hasSuffix(
                "it has no #t tag the feed asks for") == true)
    }

    @Test func anEventWhoseIDDoesNotCheckOutIsANamedSkippedItem() throws {
        // The second real event (its content has line breaks, escaped as NIP-01 says), changed.
        let changed = events[1].replacingOccurrences(of: "Maior mentira", with: "Menor mentira")
        let (signals, reader) = read([message(changed)])
        guard case .skipped(let number, let why)? = signals.first else {
            Issue.record("\(signals)")
            return
        }
        #expect(
            number == 1
                && why
                    == "event 2b0004e07fefdd27c15465eac1faa4be069ac887f9dc0368837669cd46bf4a40: its id is not the SHA-256 of its content (NIP-01)"
        )
        #expect(reader.position == nil, "an event that does not check out moves nothing")
        let noTags = #"{"id":"00","pubkey":"ab","created_at":1,"kind":1,"content":"x"}"#
        #expect(
            Nostr.whyUnverified(try JSONParser.parse(noTags)) == "it lacks pubkey, created_at, kind, tags or content")
        let numberInTags = #"{"id":"00","pubkey":"ab","created_at":1,"kind":1,"tags":[[1]],"content":"x"}"#
        #expect(Nostr.whyUnverified(try JSONParser.parse(numberInTags)) == "its tags are not arrays of strings")
    }

    @Test func theSerialisationEscapesOnlyWhatNIP01Says() throws {
        // Built by hand: the id of [0,"ab",1,1,[],"a\u0001\"\\\n\u{7f}é"] as NIP-01 serialises it.
        let content = "a\u{01}\"\\\n\u{7f}é"
        var serialised =
            Array(#"[0,"ab",1,1,[],"a"#.utf8) + [0x01] + Array(#"\"\\\n"#.utf8) + [0x7F] + Array("é\"]".utf8)
        let id = Digest.hex(try #require(Digest.sha256(serialised)))
        var writer = JSONWriter()
        writer.string(content)
        let event =
            #"{"id":"\#(id)","pubkey":"ab","created_at":1,"kind":1,"tags":[],"content":\#(String(decoding: writer.bytes, as: UTF8.self))}"#
        #expect(Nostr.whyUnverified(try JSONParser.parse(event)) == nil)
        serialised[serialised.count - 3] = 0x41
        #expect(Digest.hex(try #require(Digest.sha256(serialised))) != id)
    }

    @Test func theRelaysOtherMessagesAreSignals() {
        let (signals, _) = read([
            Array(#"["EOSE","feedcli"]"#.utf8), Array(#"["NOTICE","slow down"]"#.utf8),
            Array(#"["CLOSED","feedcli","auth-required: members only"]"#.utf8), Array(#"["OK","x",true,""]"#.utf8),
            message(events[0], subscription: "another"), Array(#"{"not":"an array"}"#.utf8), Array("nonsense".utf8),
        ])
        #expect(signals.count == 7)
        guard signals.count == 7 else { return }
        if case .endOfReplay = signals[0] {} else { Issue.record("EOSE: \(signals[0])") }
        if case .notice(let text) = signals[1] {
            #expect(text == "the relay says: slow down")
        } else {
            Issue.record("\(signals[1])")
        }
        if case .closed(let why) = signals[2] {
            #expect(why == "the relay closed the subscription: auth-required: members only")
        } else {
            Issue.record("\(signals[2])")
        }
        if case .ignored(let why, let position) = signals[3] {
            #expect(why == "a relay's OK message" && position == nil)
        } else {
            Issue.record("\(signals[3])")
        }
        if case .ignored(let why, _) = signals[4] {
            #expect(why == "an event of another subscription")
        } else {
            Issue.record("\(signals[4])")
        }
        if case .skipped(6, _) = signals[5] {} else { Issue.record("\(signals[5])") }
        if case .skipped(7, _) = signals[6] {} else { Issue.record("\(signals[6])") }
    }

    @Test func anEventIsTheContractsEntry() throws {
        let page = try NostrFeed().page(ofItems: [Array(events[1].utf8)], url: "wss://relay.example")
        let entry = try #require(Array(page.items).first)
        #expect(entry.id == "2b0004e07fefdd27c15465eac1faa4be069ac887f9dc0368837669cd46bf4a40")
        #expect(
            entry.url == "nostr:" + entry.id
                && entry.author == "be7d2a917eeb7566bfc4982c506ee9027eed5540b4ba80326ace6cb00fe57a71")
        #expect(
            entry.published == "2024-03-26T16:05:24Z" && entry.text?.hasPrefix("Maior mentira: Coreia do Norte") == true
        )
    }

    @Test func theRequestAsksFromTenMinutesBeforeTheNewestStoredEvent() throws {
        let filter = NostrFilter(
            authors: ["AB"], kinds: [1, 30023],
            tags: [
                .init(name: "t", value: "nostr"), .init(name: "t", value: "zap"),
                .init(name: "p", value: "cd"),
            ], since: .seconds(3600))
        let resumed = String(
            decoding: Nostr.request(filter, resumingFrom: "1711469125", now: Self.now),
            as: UTF8.self)
        #expect(
            resumed
                == ##"["REQ","feedcli",{"kinds":[1,30023],"authors":["ab"],"#t":["nostr","zap"],"#p":["cd"],"since":1711468525}]"##
        )
        let first = String(
            decoding: Nostr.request(NostrFilter(), resumingFrom: nil, now: Date(timeIntervalSince1970: 100_000)),
            as: UTF8.self)
        #expect(
            first == #"["REQ","feedcli",{"kinds":[1],"since":13600}]"#,
            "before anything is stored: now minus --since (1d)")
    }

    @Test func theFilterIsStoredWithTheFeedsExpressions() throws {
        let filter = NostrFilter(
            authors: [String(repeating: "a", count: 64)], kinds: [1, 7], tags: [.init(name: "t", value: "x")],
            since: .seconds(60))
        let stored = try #require(FeedExpressions(filter: "true", nostr: filter).json)
        #expect(FeedExpressions(json: stored) == FeedExpressions(filter: "true", nostr: filter))
        #expect(
            NostrFilter.tag("t=nostr") == .init(name: "t", value: "nostr") && NostrFilter.tag("tag=x") == nil
                && NostrFilter.tag("t=") == nil)
        #expect(
            NostrFilter.whyNotAPublicKey(String(repeating: "F", count: 64)) == nil
                && NostrFilter.whyNotAPublicKey("npub1xyz") != nil)
    }
}
