import Foundation
import Testing

@testable import FeedJQ
@testable import FeedModel

/// The jq sandbox's small parts, one at a time: the worker's wire, `--jq-memory`'s sizes, lone
/// surrogates, secrets in URLs, bidirectional controls, unusable links.
@Suite("Sandbox parts")
struct SandboxUnitTests {
    @Test func requestsAndRepliesSurviveTheWire() throws {
        let requests: [JQRequest] = [
            .check(".a | \"é\""),
            .map(
                JQMapRequest(
                    page: #"{"a":[1]}"#, items: ".a[]", itemLimit: 1_000_000, builtItemLimit: 200_000,
                    fields: [".id", "."], pageExpressions: [".n"])),
            .filter(expression: ".x > 1", items: ["{}", #"{"x":2}"#]),
        ]
        for request in requests { #expect(try JQWire.request(from: JQWire.encode(request)) == request) }
        let replies: [JQReply] = [
            .checked(nil), .checked("syntax error"),
            .mapped(
                items: .paths([#"["a",0]"#], more: true), fields: [[.values(["1"], more: false), .failed("no")], []],
                page: [.values([], more: false)]),
            .filtered([true, false]), .filterFailed(position: 3, message: "x"), .unavailable("no libjq"),
        ]
        for reply in replies { #expect(try JQWire.reply(from: JQWire.encode(reply)) == reply) }
    }

    @Test func aReplyCutShortOrLyingAboutItsCountsIsRefused() {
        let whole = JQWire.encode(JQReply.filtered([true, true, false]))
        for length in 0..<whole.count {
            #expect((try? JQWire.reply(from: Array(whole.prefix(length)))) == nil, "\(length) bytes")
        }
        #expect((try? JQWire.reply(from: [3, 0xFF, 0xFF, 0xFF, 0xFF])) == nil, "four billion passes in no bytes")
        #expect((try? JQWire.reply(from: whole + [0])) == nil, "a byte past the end")
        #expect((try? JQWire.reply(from: [9])) == nil)
    }

    /// `--timeout` bounds a feed's run, every page together (six pages of
    /// 1.5 s each with `--timeout 4` took 16.7 s): once a run's budget is spent, the next page's
    /// expressions fail as past `--timeout` without a worker being asked.
    @Test func aRunsExpressionsShareOneTimeout() {
        let limits = JQ.Limits(timeout: .seconds(4)).forOneRun()
        let budget = limits.budget
        #expect(budget?.timeLeft == .seconds(4))
        #expect(limits.forOneRun().budget !== budget, "each run a budget of its own")
        budget?.spend(.milliseconds(1500))
        budget?.spend(.milliseconds(1500))
        #expect(budget?.timeLeft == .seconds(1))
        budget?.spend(.milliseconds(1500))
        #expect(budget?.timeLeft == .zero, "never below zero")
        do {
            _ = try JQ.filter(".", items: ["{}"], limits: limits)
            Issue.record("a spent budget still asked a worker")
        } catch {
            #expect(error.error == .timedOut(.seconds(4)), "said as the option's time: \(error.error)")
        }
    }

    @Test func memorySizesReadAsPeopleWriteThem() {
        #expect(MemorySize.parse("512M") == 512 << 20)
        #expect(MemorySize.parse("1G") == 1 << 30)
        #expect(MemorySize.parse("64k") == 64 << 10)
        #expect(MemorySize.parse("100MiB") == 100 << 20)
        #expect(MemorySize.parse("65536") == 65536)
        for bad in ["", "M", "-1M", "0", "1.5G", "9999999999T", "12X"] {
            #expect(MemorySize.parse(bad) == nil, "\(bad)")
        }
        #expect(MemorySize.format(512 << 20) == "512M")
        #expect(MemorySize.format(1000) == "1000")
    }

    @Test func loneSurrogateEscapesBecomeReplacementCharacters() {
        #expect(LoneSurrogates.replaced(in: #"{"a":"\ud800"}"#) == #"{"a":"\ufffd"}"#)
        #expect(LoneSurrogates.replaced(in: #"["\udc00x","\uD83D"]"#) == #"["\ufffdx","\ufffd"]"#)
        #expect(LoneSurrogates.replaced(in: #"["\ud83d\ude00"]"#) == #"["\ud83d\ude00"]"#, "a pair is kept")
        #expect(LoneSurrogates.replaced(in: #"["\\ud800"]"#) == #"["\\ud800"]"#, "an escaped backslash, then text")
        #expect(LoneSurrogates.replaced(in: #"["\ud800\ud800\udc00"]"#) == #"["\ufffd\ud800\udc00"]"#)
        let plain = #"{"a":"no escapes at all"}"#
        #expect(LoneSurrogates.replaced(in: plain) == plain)
    }

    @Test func anInexactStringIsWrittenWithTheEscapesTheServerSent() throws {
        let document = try JSONParser.parse(Data(#"{"t":"a\ud800\\b\"c"}"#.utf8))
        #expect(RawJSON(document.value).text == #"{"t":"a\ud800\\b\"c"}"#)
    }

    @Test func credentialParametersAreMaskedWhereverAURLIsShown() {
        #expect(
            Redaction.maskingSecrets(in: "https://api.example/x?access_token=abc&page=2&API_KEY=k#f")
                == "https://api.example/x?access_token=***&page=2&API_KEY=***#f")
        #expect(
            Redaction.maskingSecrets(in: "GET https://u:pw@h.example/?sig=s1 -> 200")
                == "GET https://u:***@h.example/?sig=s1 -> 200".replacingOccurrences(of: "sig=s1", with: "sig=***"))
        #expect(
            Redaction.maskingSecrets(in: "https://h.example/?keyword=rust&tokens=2")
                == "https://h.example/?keyword=rust&tokens=2")
        #expect(Redaction.hasMaskedSecret("https://h.example/?token=***"))
        #expect(Redaction.hasMaskedSecret("https://me:***@h.example/"))
        #expect(!Redaction.hasMaskedSecret("https://h.example/?q=***"))
    }

    @Test func bidirectionalControlsAreShownEscaped() {
        #expect(TerminalText.safe("abc\u{202E}fed\u{2066}x\u{2069}") == "abc\\u202Efed\\u2066x\\u2069")
        #expect(TerminalText.safe("Hebrew שלום and ‎marks") == "Hebrew שלום and ‎marks", "letters of every script pass")
    }

    @Test func linksThatCannotBeRequestedSayWhy() {
        #expect(FeedRegistration.whyUnusableLink("https://a.example/x?y=1") == nil)
        #expect(FeedRegistration.whyUnusableLink("http://[::1]:8080/x") == nil)
        #expect(FeedRegistration.whyUnusableLink("javascript:alert(1)") == "is not an http or https URL")
        #expect(FeedRegistration.whyUnusableLink("--help") == "is not an http or https URL")
        #expect(FeedRegistration.whyUnusableLink("http://a.example:0/") == "has a bad port")
        #expect(FeedRegistration.whyUnusableLink("http://a.example:65536/") == "has a bad port")
        #expect(FeedRegistration.whyUnusableLink("http://a.example:8x/") == "has a bad port")
        #expect(FeedRegistration.whyUnusableLink("http://:80/") == "has no host")
        #expect(FeedRegistration.whyUnusableLink("http://a.example/\u{7}") == "holds a control character")
        #expect(
            FeedRegistration.whyUnusableLink("http://a.example/" + String(repeating: "a", count: 9000))
                == "is longer than 8192 bytes")
    }
}
