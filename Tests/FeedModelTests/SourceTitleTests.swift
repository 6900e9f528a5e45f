import FeedModel
import Testing

/// A source feed's title is kept trimmed and bounded: a server's `title` can be any size.
@Suite("A source feed's title as it is kept")
struct SourceTitleTests {
    @Test func aTitleIsTrimmedBoundedAndNilWhenEmpty() {
        #expect(FeedSettings.sourceTitle("  Daring Fireball \n") == "Daring Fireball")
        #expect(FeedSettings.sourceTitle(" \t ") == nil && FeedSettings.sourceTitle(nil) == nil)
        let long = String(repeating: "é", count: 10_000)
        #expect(FeedSettings.sourceTitle(long)?.count == 200)
    }
}
