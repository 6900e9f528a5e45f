import FeedTesting
import Foundation
import Testing

@testable import FeedKinds
@testable import FeedModel

/// Jetstream's events as the `jetstream` kind reads them, on Jetstream's own capture of
/// production traffic (`Fixtures/streams/jetstream-v1.jsonl`, 152 events; PROVENANCE.md).
@Suite("Jetstream events")
struct JetstreamTests {
    /// The clock the readers run at: after every event of the captures (an event past the clock
    /// is never a position).
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let capture: [[UInt8]] = {
        let url = Fixtures.root.appendingPathComponent("streams/jetstream-v1.jsonl")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { Array($0.utf8) }
    }()

    private func read(_ messages: [[UInt8]], from position: String? = nil) -> (
        signals: [StreamSignal], reader: JetstreamMessages
    ) {
        var reader = JetstreamMessages(position: position)
        var signals: [StreamSignal] = []
        for (index, message) in messages.enumerated() {
            signals += reader.signals(of: message, number: index + 1, now: Self.now)
        }
        return (signals, reader)
    }

    private func timeUS(_ message: [UInt8]) throws -> Int64 {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any])
        return try #require((object["time_us"] as? NSNumber)?.int64Value)
    }

    @Test func createsAreEntriesAndEverythingElseMovesThePositionOnly() throws {
        #expect(capture.count == 152)
        let (signals, reader) = read(capture)
        let items = signals.compactMap { if case .item(let item) = $0 { item } else { nil } }
        let ignored = signals.compactMap { if case .ignored(let why, _) = $0 { why } else { nil } }
        // 144 creates (likes, posts, reposts, follows, a block); 8 others (deletes, updates, identity, account).
        #expect(items.count == 144 && ignored.count == 8, "\(ignored)")
        #expect(ignored.contains("an identity event of did:plc:hqvhxrowqbemo5e4wjnj6zao"))
        #expect(ignored.contains("a commit that deletes app.bsky.feed.post of did:plc:4smmjsqf6l5jkzczvw6vsrqc"))
        #expect(ignored.contains { $0.hasPrefix("a commit that updates app.bsky.actor.status") })
        // The position is the largest time_us, which is not the last event's.
        let largest = try capture.map(timeUS).max()
        let last = try timeUS(capture[capture.count - 1])
        #expect(reader.position == largest && last != largest)
        #expect(
            signals.allSatisfy { signal in
                switch signal {
                case .item(let item): item.lastEventID != nil
                case .ignored(_, let id): id != nil
                default: false
                }
            }, "every event carries the position after it")
    }

    @Test func aPostIsTheContractsEntry() throws {
        let page = try JetstreamFeed().page(ofItems: capture, url: "wss://jetstream.example/subscribe")
        #expect(
            page.items.count == 144 && page.skipped.count == 8,
            "the reader passes only creates; anything else is skipped")
        let post = try #require(Array(page.items).first { $0.id.contains("/app.bsky.feed.post/") })
        let source = try #require(try JSONSerialization.jsonObject(with: Data(post.source.text.utf8)) as? [String: Any])
        let did = try #require(source["did"] as? String)
        let commit = try #require(source["commit"] as? [String: Any])
        let record = try #require(commit["record"] as? [String: Any])
        let rkey = try #require(commit["rkey"] as? String)
        #expect(post.id == "at://\(did)/app.bsky.feed.post/\(rkey)")
        #expect(post.text == record["text"] as? String && post.author == did)
        #expect(post.url == "https://bsky.app/profile/\(did)/post/\(rkey)")
        #expect(post.published == Timestamp.normalize(record["createdAt"] as? String))
        #expect(source["kind"] as? String == "commit", "the source is the whole event")
        let like = try #require(Array(page.items).first { $0.id.contains("/app.bsky.feed.like/") })
        #expect(like.url == nil && like.text == nil, "a web address for posts only")
    }

    @Test func aRecordWithoutCreatedAtIsPublishedAtItsTimeUS() throws {
        let event =
            #"{"did":"did:plc:a","time_us":1725911162329308,"kind":"commit","commit":{"operation":"create","collection":"app.bsky.feed.like","rkey":"k","record":{}}}"#
        let page = try JetstreamFeed().page(ofItems: [Array(event.utf8)], url: "wss://j/subscribe")
        #expect(Array(page.items).first?.published == "2024-09-09T19:46:02Z")
    }

    @Test func whatIsNotAnEventIsANamedSkippedItem() {
        let (signals, reader) = read([Array("not json".utf8), Array(#"{"kind":"commit"}"#.utf8), Array("[1]".utf8)])
        let skipped = signals.compactMap { if case .skipped(let line, let why) = $0 { "\(line): \(why)" } else { nil } }
        #expect(skipped.count == 3 && skipped[0].hasPrefix("1: it is not JSON"))
        #expect(skipped[1] == "2: it is not a Jetstream event (no time_us)" && skipped[2].hasPrefix("3: "))
        #expect(reader.position == nil)
    }

    @Test func aReplayThatStartsAfterThePositionIsSaidOnce() {
        let first = #"{"did":"did:plc:a","time_us":2000,"kind":"identity"}"#
        let second = #"{"did":"did:plc:a","time_us":3000,"kind":"identity"}"#
        let (signals, _) = read([Array(first.utf8), Array(second.utf8)], from: "1000")
        let notices = signals.compactMap { if case .notice(let text) = $0 { text } else { nil } }
        #expect(notices.count == 1 && notices[0].contains("newer than the stored position"))
        // Replayed from before the position (the 5 s overlap): nothing to say.
        #expect(
            read([Array(first.utf8)], from: "2500").signals.allSatisfy { if case .notice = $0 { false } else { true } })
        // A first connection has no position to miss.
        #expect(read([Array(first.utf8)]).signals.allSatisfy { if case .notice = $0 { false } else { true } })
    }

    /// A `time_us` from the far future (year 2255) is an entry as any, but never the position: a
    /// server live-tails from a future cursor, and a real gap after it would never be said; a
    /// position stored past the clock asks from now.
    @Test func anEventFromTheFarFutureIsAnEntryButNeverThePosition() throws {
        let now = Int64(Self.now.timeIntervalSince1970) * 1_000_000
        func post(_ time: Int64, _ rkey: String) -> [UInt8] {
            Array(
                #"{"did":"did:plc:a","time_us":\#(time),"kind":"commit","commit":{"operation":"create","collection":"app.bsky.feed.post","rkey":"\#(rkey)","record":{"text":"t"}}}"#
                    .utf8)
        }
        let (signals, reader) = read([post(now - 1_000_000, "a"), post(8_999_999_995_000_000, "b")])
        #expect(signals.filter { if case .item = $0 { true } else { false } }.count == 2, "\(signals)")
        #expect(reader.position == now - 1_000_000, "the far-future event moved nothing")
        let url = "wss://j/subscribe"
        #expect(
            Jetstream.url(url, resumingFrom: "8999999995000000", now: Self.now) == url + "?cursor=\(now - 5_000_000)")
    }

    @Test func aConnectionAsksFromFiveSecondsBeforeThePosition() {
        let url = "wss://j/subscribe?wantedCollections=app.bsky.feed.post"
        #expect(Jetstream.url(url, resumingFrom: nil, now: Self.now) == url)
        #expect(Jetstream.url(url, resumingFrom: "1783175888403568", now: Self.now) == url + "&cursor=1783175883403568")
        #expect(
            Jetstream.url(url, resumingFrom: "\(Int64.min)", now: Self.now) == url + "&cursor=0",
            "no overflow from a damaged position"
        )
        #expect(Jetstream.url(url, resumingFrom: "not a number", now: Self.now) == url)
    }

    @Test func feedsAddPutsAccountsAndCollectionsInTheURL() {
        #expect(
            Jetstream.feedURL("wss://j/subscribe", dids: [], collections: [])
                == "wss://j/subscribe?wantedCollections=app.bsky.feed.post")
        #expect(
            Jetstream.feedURL(
                "wss://j/subscribe?wantedCollections=app.bsky.feed.like", dids: ["did:plc:a"], collections: [])
                == "wss://j/subscribe?wantedCollections=app.bsky.feed.like&wantedDids=did%3Aplc%3Aa")
        #expect(
            Jetstream.feedURL(
                "wss://j/subscribe", dids: [], collections: ["app.bsky.feed.post", "app.bsky.feed.repost"])
                == "wss://j/subscribe?wantedCollections=app.bsky.feed.post&wantedCollections=app.bsky.feed.repost")
    }

    /// The fuzzer's find: a `did` that begins with a combining mark (U+0598) makes an id whose
    /// last `/` and that mark are one character, so the id does not `hasPrefix("at://")`; its
    /// bytes still are `at://`, the did's and the rest, as stored and printed.
    @Test func anIdIsItsEventsBytesWhateverTheDidBeginsWith() throws {
        let did = "\u{598}:plc:x"
        let event =
            #"{"did":"\#(did)","time_us":1783175888352946,"kind":"commit","commit":{"operation":"create","#
            + #""collection":"app.bsky.feed.post","rkey":"3mp"}}"#
        let (signals, _) = read([Array(event.utf8)])
        let items = signals.compactMap { if case .item(let item) = $0 { item.json } else { nil } }
        let page = try JetstreamFeed().page(ofItems: items, url: "wss://j/subscribe")
        let id = try #require(Array(page.items).first?.id)
        #expect(Array(id.utf8) == Array("at://\(did)/app.bsky.feed.post/3mp".utf8))
        #expect(
            id.utf8.starts(with: "at://".utf8) && !id.hasPrefix("at://"),
            "a character comparison would call it no at:// URI")
    }
}
