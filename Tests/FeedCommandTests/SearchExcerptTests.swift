import Testing

@testable import FeedModel
@testable import FeedRendering

/// What `search` shows of a match: a few words around the first, marked; a phrase as one mark;
/// HTML as text; nothing a terminal would act on.
@Suite("Search excerpts")
struct SearchExcerptTests {
    private func excerpt(_ text: String, _ query: String, marks: SearchExcerpt.Marks = .brackets) -> String {
        let entry = Entry(
            feed: "f", id: "1", title: nil, text: text, fetchedAt: "2026-12-07T00:00:00Z",
            source: RawJSON(compactText: "{}"))
        return SearchExcerpt.of(entry, query: SearchQuery.parse(query), marks: marks)
    }

    @Test func aPhraseIsOneMarkAndWordsAreMarkedWhereverTheyStand() {
        #expect(
            excerpt("free and open source, open to all", #""open source""#) == "free and [open source], open to all")
        #expect(excerpt("Swift and swift, SWIFT", "swift") == "[Swift] and [swift], [SWIFT]")
        #expect(excerpt("concurrency in Swift", "concur*") == "[concurrency] in Swift")
        #expect(excerpt("Le café chaud", "cafe", marks: .bold) == "Le \u{1B}[1mcafé\u{1B}[22m chaud")
        #expect(excerpt("Le café chaud", "cafe", marks: .none) == "Le café chaud")
    }

    @Test func aLongTextIsCutAroundTheFirstMatch() {
        let words = (1...100).map { "w\($0)" }
        let text = (words[..<50] + ["needle"] + words[50...]).joined(separator: " ")
        let shown = excerpt(text, "needle")
        #expect(shown.hasPrefix("…w45 w46") && shown.contains("[needle]") && shown.hasSuffix("…"), "\(shown)")
        #expect(excerpt(text, "absent").hasPrefix("w1 w2"), "no match in the text: its beginning")
    }

    @Test func htmlIsShownAsTextAndControlsNeverReachTheTerminal() {
        #expect(excerpt("<p>Hello <b>world</b></p>", "world") == "Hello [world]")
        #expect(!excerpt("a \u{1B}[31mred\u{1B}[0m word", "red").contains("\u{1B}"))
        #expect(excerpt("line one\nline two", "two") == "line one line [two]")
    }
}
