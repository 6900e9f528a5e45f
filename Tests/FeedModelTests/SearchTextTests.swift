import Testing

@testable import FeedModel

/// Search's folding of words is the same for what is indexed and for what is asked: folding a
/// folded word changes nothing.
@Suite("Search's words")
struct SearchTextTests {
    @Test func foldingIsCaseAccentsAndScriptsWithoutSpaces() {
        #expect(SearchText.folded("Café Ærø naïve ÜBER") == ["cafe", "aero", "naive", "uber"])
        #expect(SearchText.folded("東京で e-mail 🎉ok") == ["東", "京", "で", "e", "mail", "🎉", "ok"])
        #expect(SearchText.folded(#"<a href="x">Link</a> &amp; 1 < 2"#) == ["link", "1", "2"])
    }

    /// The fuzz target's find: `Ƒ` lowercases to `ƒ`, which folds to `f` only when folded again.
    @Test func aFoldedWordFoldsToItself() {
        #expect(SearchText.folded("sٚwƑ") == ["swf"])
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let scalars = (0..<Int.random(in: 1...4, using: &generator)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0x41...0x2FFF, using: &generator))
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            for word in SearchText.folded(text) {
                #expect(SearchText.folded(word) == [word], "\(text.unicodeScalars.map { $0.value })")
            }
        }
    }
}
