import FeedRendering
import Testing

/// Tables are padded by terminal columns, not by characters: a wide character takes two, a
/// combining mark none (a feed named `日本語のブログ` shifted its row 7 columns right).
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

    @Test func statusRowsLineUpWhateverTheScript() async throws {
        let session = StoreSession()
        try await session.add("日本語のブログ", "http://127.0.0.1:9/j", kind: "linked")
        try await session.add("plain", "http://127.0.0.1:9/p", kind: "linked")
        let table = try await session.feedcli("status").stdout.split(separator: "\n").map(String.init)
        #expect(table.count == 3, "\(table)")
        // KIND starts at the same column on every row.
        let columns = table.map { line -> Int? in
            guard let range = line.range(of: line.hasPrefix("FEED") ? "KIND" : "linked") else { return nil }
            return DisplayWidth.of(String(line[..<range.lowerBound]))
        }
        #expect(Set(columns).count == 1 && columns.allSatisfy { $0 != nil }, "\(table)")
    }
}
