import Testing

@testable import FeedModel

/// `UTF8Check.isValid` says what the standard library's validation says, allocating nothing:
/// the WebSocket framing checks each text message with it.
@Suite("UTF-8 well-formedness without a copy")
struct UTF8CheckTests {
    private func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes(UTF8Check.isValid)
    }

    private func standard(_ bytes: [UInt8]) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    @Test func theEdgesOfTable3_7() {
        let cases: [([UInt8], Bool)] = [
            ([], true),
            ([0x7F], true),
            ([0xC2, 0x80], true),
            ([0xC1, 0xBF], false),  // overlong
            ([0xE0, 0xA0, 0x80], true),
            ([0xE0, 0x9F, 0xBF], false),  // overlong
            ([0xED, 0x9F, 0xBF], true),
            ([0xED, 0xA0, 0x80], false),  // a surrogate
            ([0xEF, 0xBF, 0xBF], true),
            ([0xF0, 0x90, 0x80, 0x80], true),
            ([0xF0, 0x8F, 0xBF, 0xBF], false),  // overlong
            ([0xF4, 0x8F, 0xBF, 0xBF], true),
            ([0xF4, 0x90, 0x80, 0x80], false),  // past U+10FFFF
            ([0xF5, 0x80, 0x80, 0x80], false),
            ([0xE2, 0x82], false),  // cut short
            ([0x80], false),  // a continuation alone
            (Array("plain ASCII, eight bytes at a time and then some".utf8), true),
            (Array("été — 🎉".utf8), true),
        ]
        for (bytes, expected) in cases {
            #expect(isValid(bytes) == expected, "\(bytes)")
            #expect(standard(bytes) == expected, "the reference agrees on \(bytes)")
        }
    }

    @Test func agreesWithTheStandardLibraryOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        // Bytes drawn mostly from where UTF-8's rules are (leads, continuations, a little
        // ASCII), so that valid and invalid sequences both come up often.
        let alphabet: [UInt8] = [
            0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5,
        ]
        var valid = 0
        for _ in 0..<50_000 {
            let length = Int.random(in: 0...9, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            let expected = standard(bytes)
            if expected { valid += 1 }
            #expect(isValid(bytes) == expected, "\(bytes)")
        }
        #expect(valid > 1_000, "valid sequences came up too: \(valid)")
    }
}
