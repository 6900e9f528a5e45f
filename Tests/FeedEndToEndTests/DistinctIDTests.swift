import FeedStoreContract
import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// Two different ids never become one: an id that Unicode text cannot hold as
/// sent (a lone surrogate escape, bytes that are not UTF-8) keeps an escaped form of its own.
/// Before, `"\ud800"`, `"\ud801"` and `"\udc00"` all read as U+FFFD: one entry kept, two dropped,
/// exit 0, nothing said.
@Suite("Ids that Unicode cannot hold stay distinct", .timeLimit(.minutes(2)))
struct DistinctIDTests {
    private func parse(_ bytes: [UInt8]) throws -> JSON {
        try JSONParser.parse(Data(bytes)).value
    }

    @Test func aLoneSurrogateIsAnInexactStringWithBothReadings() throws {
        let value = try JSONParser.parse(#""\ud800""#)
        #expect(value == .inexactString(InexactString(decoded: "\u{FFFD}", escaped: #"\ud800"#)))
        #expect(value.string == "\u{FFFD}", "text reads U+FFFD, as before")
        #expect(value.id == #"\ud800"#)
        #expect(try JSONParser.parse(#""\uD801""#).id == #"\ud801"#, "escapes in lower case: one value, one id")
        #expect(try JSONParser.parse(#""\udc00""#).id == #"\udc00"#)
        #expect(try JSONParser.parse(#""a\nb\ud83d!""#).id == "a\nb\\ud83d!", "other escapes are decoded")
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"), "a pair is a scalar")
        #expect(try JSONParser.parse(#""\ud83d\u0041""#).id == #"\ud83dA"#, "a high surrogate before another escape")
    }

    @Test func backslashesAreDoubledSoTheEscapedFormIsAnEscaping() throws {
        // Without doubling, both read `\ud800\udc00`.
        let first = try JSONParser.parse(#""\\ud800\udc00""#).id
        let second = try JSONParser.parse(#""\ud800\\udc00""#).id
        #expect(first == #"\\ud800\udc00"#)
        #expect(second == #"\ud800\\udc00"#)
    }

    @Test func bytesThatAreNotUTF8AreEscapedAsHex() throws {
        let quote = UInt8(ascii: "\"")
        #expect(try parse([quote, 0xFF, quote]).id == #"\xff"#, "fast path, no escapes")
        #expect(try parse([quote, 0xFE, quote]).id == #"\xfe"#)
        #expect(try parse([quote, 0x61, 0xC3, quote]).id == #"a\xc3"#, "a cut sequence")
        #expect(try parse([quote, 0xFF, UInt8(ascii: "\\"), UInt8(ascii: "\\"), quote]).id == #"\xff\\"#, "slow path")
        #expect(try parse([quote, 0xFF, quote]).string == "\u{FFFD}")
        #expect(try parse([quote, 0xC3, 0xA9, quote]) == .string("é"), "valid UTF-8 is a plain string")
    }

    /// The fuzz target `json` found it (CI, 2026-11-25): a stored `source` cannot hold bytes that
    /// are not UTF-8, so they read back from it as U+FFFD, the string's decoded reading; the id
    /// feedcli stores is the one read from the response, escaped.
    @Test func aSourceHoldsBytesThatAreNotUTF8AsTheirDecodedReading() throws {
        let bytes = Array(#"{"id":"pars"#.utf8) + [0xCC, 0xCC, 0xCC] + Array(#"ed"}"#.utf8)
        let document = try JSONParser.parse(Data(bytes))
        #expect(document.value["id"]?.id == #"pars\xcc\xcc\xcced"#)
        let reread = try JSONParser.parse(document.source.text)
        #expect(reread["id"] == .string("pars\u{FFFD}\u{FFFD}\u{FFFD}ed"))
        #expect(reread["id"]?.string == document.value["id"]?.string, "the same text")
    }

    @Test func aMemberNameKeepsItsReplacedReading() throws {
        let value = try JSONParser.parse(#"{"\ud800":1}"#)
        #expect(value["\u{FFFD}"] == .number("1"))
    }

    /// Ids of JSON Lines output, read by feedcli's own parser: `source` holds the lone
    /// surrogates as sent, which Foundation's parser refuses.
    private func ids(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { try? JSONParser.parse(String($0))["id"]?.string }
    }

    private func titles(_ output: String) -> [String: String] {
        var titles: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let object = try? JSONParser.parse(String(line)), let id = object["id"]?.string else { continue }
            titles[id] = object["title"]?.string
        }
        return titles
    }

    /// A page of five ids that all read U+FFFD, and a title with a lone surrogate.
    @Test func fiveSuchIdsAreFiveEntriesThatReadAndShowFindByTheirIDs() async throws {
        var body = Array(#"[{"id":"\ud800","title":"a\udc00b"},{"id":"\ud801"},{"id":"\udc00"},{"id":""#.utf8)
        body += [0xFF] + Array(#""},{"id":""#.utf8) + [0xFE] + Array(#""},{"id":"\ufffd"}]"#.utf8)
        let page = body
        let server = try LoopbackServer { _, connection in connection.respond(200, body: page) }
        let session = StoreSession()
        try await session.add("f", server.baseURL + "/page", kind: "linked")
        let run = try await session.feedcli("sync", "f", "--jsonl")
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let found = ids(run.stdout)
        #expect(Set(found) == [#"\ud800"#, #"\ud801"#, #"\udc00"#, #"\xff"#, #"\xfe"#, "\u{FFFD}"], "\(found)")
        #expect(found.count == 6)
        #expect(titles(run.stdout)[#"\ud800"#] == "a\u{FFFD}b", "titles read U+FFFD")

        #expect(try await session.feedcli("sync", "f", "--jsonl").stdout.isEmpty, "the same ids next time: nothing new")
        let shown = try await session.feedcli("show", #"\ud801"#, "--feed", "f", "--json")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(try await session.feedcli("read", #"\xfe"#, "--feed", "f").status == 0)
        let unread = await ids(try session.feedcli("list", "f", "--unread", "--jsonl").stdout)
        #expect(unread.count == 5 && !unread.contains(#"\xfe"#), "\(unread)")
    }
}
