import FeedStoreContract
import Testing

@testable import FeedModel
@testable import FeedReactor
@testable import FeedStore

/// Plain output's escaping of control characters, and its fast path for text that has none.
@Suite("terminal text")
struct TerminalTextTests {
    /// What `safe` promises, scalar by scalar: the reference the fast path must agree with.
    static func reference(_ text: String, multiline: Bool) -> String {
        text.unicodeScalars.map { scalar -> String in
            switch scalar.value {
            case 0x0A where multiline, 0x09 where multiline: String(scalar)
            case 0x0A: "\\n"
            case 0x09: "\\t"
            case 0x00..<0x20, 0x7F: "\\x" + String(format2(scalar.value))
            case 0x80..<0xA0: "\\u00" + String(format2(scalar.value))
            default: String(scalar)
            }
        }.joined()
    }

    static func format2(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count < 2 ? "0" + digits : digits
    }

    @Test func everyControlIsEscapedAndNothingElse() {
        #expect(TerminalText.safe("plain ünïcödé 🎉 text") == "plain ünïcödé 🎉 text")
        #expect(TerminalText.safe("a\u{1B}[2Jb\u{7F}\u{0}") == #"a\x1B[2Jb\x7F\x00"#)
        #expect(TerminalText.safe("csi\u{9B}x\u{85}") == #"csi\u009Bx\u0085"#, "C1 controls")
        #expect(TerminalText.safe("\u{A0}\u{C2}") == "\u{A0}\u{C2}", "U+00A0 and U+00C2 are text, not C1")
        #expect(TerminalText.safe("one\ntwo\tthree") == #"one\ntwo\tthree"#)
        #expect(TerminalText.safe("one\ntwo\tthree", multiline: true) == "one\ntwo\tthree")
    }

    @Test func theFastPathAgreesWithTheReference() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = [
            "a", " ", "\n", "\t", "\u{1B}", "\u{7F}", "\u{80}", "\u{9F}", "\u{A0}",
            "\u{C2}", "é", "€", "🎉", "\u{0}",
        ]
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...12, using: &generator)
            var text = String.UnicodeScalarView()
            for _ in 0..<length { text.append(alphabet.randomElement(using: &generator) ?? "a") }
            let string = String(text)
            for multiline in [false, true] {
                #expect(
                    TerminalText.safe(string, multiline: multiline) == Self.reference(string, multiline: multiline),
                    "\(string.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
    }
}
