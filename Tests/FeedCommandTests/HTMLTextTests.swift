import FeedStoreContract
import FeedTesting
import Foundation
import Testing

@testable import FeedCore
@testable import FeedHTTP
@testable import FeedKinds
@testable import FeedModel
@testable import FeedReactor
@testable import FeedRendering
@testable import FeedStore

/// Plain text that reads like text: HTML in an entry's text rendered for a person, JSON untouched.
@Suite("HTML shown as text", .timeLimit(.minutes(3)))
struct HTMLTextTests {
    @Test func blocksListsLinksAndEntities() {
        let rendered = HTMLText.render(
            """
            <p>First &amp; <em>second</em>&#8212;third&#x2019;s.</p><script>alert(1)</script><style>p{}</style>
            <ul><li>one</li><li><a href="https://a.example/x?y=1&amp;z=2">two</a></li></ul>
            <p>Line<br>break &nbsp;and&nbsp;space, &unknown; kept.</p>
            """)
        #expect(
            rendered.text
                == "First & second—third’s.\n\n• one\n• two [1]\n\nLine\nbreak \u{A0}and\u{A0}space, &unknown; kept.")
        #expect(rendered.links == ["https://a.example/x?y=1&z=2"])
        #expect(!HTMLText.looksLikeHTML("a < b and c > d"), "plain text with angle brackets is left alone")
        #expect(HTMLText.looksLikeHTML("Fish &amp; chips"))
    }

    /// A list item whose content is a paragraph (`<li><p>…</p></li>`, as Daring Fireball writes
    /// footnotes) reads as one item, its text after its bullet (it was a lone bullet, a blank
    /// line, then the text); an in-page anchor (`#fn1-…`) is no link in a terminal.
    @Test func listItemsOfParagraphsAndInPageAnchors() {
        let rendered = HTMLText.render(
            """
            <p>Said so.<sup id="fnr1"><a href="#fn1-2026">1</a></sup></p>            <ol><li id="fn1-2026"><p>A note with <a href="https://e.example/n">a link</a>.&nbsp;<a href="#fnr1">↩︎</a></p></li>            <li><p>Another.</p></li></ol>
            """)
        #expect(rendered.text == "Said so.1\n\n• A note with a link [1].\u{A0}↩︎\n\n• Another.", "\(rendered.text)")
        #expect(rendered.links == ["https://e.example/n"])
    }

    /// Found by the fuzzer (its invariant was wrong, the renderer right): a `<` with no `>` after
    /// it is not a tag and stays as text, and an escaped tag is text the author meant.
    @Test func anUnclosedOrEscapedTagIsText() {
        #expect(HTMLText.render("\n<script344474\0\0 \t").text == "<script344474\0\0")
        #expect(HTMLText.render("<p>&lt;script&gt;x</p><script>y</script>").text == "<script>x")
        #expect(HTMLText.render("a <b>c</b> <d").text == "a c <d")
    }

    /// Found by the fuzzer (its check was wrong, the wrapping right): a space followed by a
    /// spacing mark (U+1C34) is one character, not a space, so words are not split there; a line
    /// longer than the width is one word in the wrapper's own terms.
    @Test func aSpaceThatJoinsAMarkIsNoBreak() {
        let word = String(repeating: "x", count: 45) + " \u{1C34}I"
        let wrapped = TextWrapping.wrap("ab " + word + " cd", width: 40)
        #expect(wrapped == "ab\n" + word + "\ncd")
        #expect(wrapped.split(separator: "\n").allSatisfy { $0.count <= 40 || !$0.contains { $0 == " " } })
    }

    @Test(arguments: ["DaringFireball", "inessential", "3960"])
    func theRealJSONFeedsReadAsText(name: String) throws {
        let response = HTTPResponse(
            status: 200, body: try Fixtures.data("jsonfeed/\(name).json"), effectiveURL: "https://x/")
        let items = try JSONFeedKind().page(from: response).items
        for item in items {
            let entry = item.entry(feed: "f", fetchedAt: "2026-11-21T19:00:00Z")
            let plain = EntryRenderer.plain(entry, width: 60)
            #expect(
                !plain.contains("<p>") && !plain.contains("</a>") && !plain.contains("&#8212;")
                    && !plain.contains("&amp;"),
                "\(entry.id)")
            #expect(
                plain.split(separator: "\n").allSatisfy { line in
                    line.count <= 60 || !line.contains(" ") || line.hasPrefix("[")
                }, "wrapped to the width, but for unbreakable words and the link references")
            let json = String(decoding: EntryRenderer.json(entry), as: UTF8.self)
            let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(decoded["text"] as? String == item.text, "JSON output is never altered")
        }
    }
}

/// One-line forms (`list`, `sync`) show a text that is HTML as text, as `show` does (an
/// untitled Mastodon status showed `<p>I have never stolen a ham…</p>`).
@Suite("One-line plain output")
struct PlainLineTests {
    @Test func anUntitledEntryShowsItsHTMLTextAsText() {
        var entry = Entry.sample("1", feed: "masto")
        entry.title = nil
        entry.text = "<p>I have never stolen a ham &amp; I never will</p><p>second paragraph</p>"
        #expect(EntryRenderer.plainLine(entry) == "* @0 masto: I have never stolen a ham & I never will\n")
    }

    @Test func aPlainTextShowsItsFirstLineAsBefore() {
        var entry = Entry.sample("2", feed: "f")
        entry.title = nil
        entry.text = "first line\r\nsecond line"
        #expect(EntryRenderer.plainLine(entry) == "* @0 f: first line\n")
    }
}
