import FeedRendering
import Testing

/// Tables are padded by terminal columns, not by characters: a wide character takes two, a
/// combining mark none (a feed named `日本語のブログ` shifted its row 7 columns right; the
/// binary's tables: `PlainTextLayoutTests`).
@Suite("Display width")
struct DisplayWidthTests {
    @Test func wideCharactersTakeTwoColumnsAndCombiningMarksNone() {
        #expect(DisplayWidth.of("日本語のブログ") == 14)
        #expect(DisplayWidth.of("e\u{301}te\u{301}") == 3)
        #expect(DisplayWidth.of("ｆｕｌｌ") == 8)
        #expect(DisplayWidth.of("plain") == 5)
        #expect(DisplayWidth.padded("日本", to: 6) == "日本  ")
        #expect(DisplayWidth.fitting("日本語のブログ", columns: 6) == "日本…")
    }
}
