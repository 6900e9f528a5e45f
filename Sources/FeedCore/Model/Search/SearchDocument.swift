/// What search sees of an entry: the folded words (`SearchText`) of its title, text, author,
/// URL (host and path) and feed name, each field cut to a bound that every engine can hold
/// whole, so that the index of either store and the in-memory scan match the same entries.
///
/// PostgreSQL numbers a `tsvector`'s positions up to 16,383 and refuses one over 1 MB: a text is
/// indexed by its first `bodyWords` words (a long article's beginning, as Miniflux does), and a
/// word over `longestWord` bytes (no word, a run of digits or of letters without a space) is left
/// out.
package struct SearchDocument: Equatable, Sendable {
    package var title: [String]
    package var body: [String]
    package var author: [String]
    package var link: [String]
    package var feed: [String]

    package static let bodyWords = 15_000
    package static let titleWords = 1_000
    package static let otherWords = 100
    package static let longestWord = 255

    package init(title: String?, text: String?, author: String?, url: String?, feed: String) {
        func words(_ text: String?, limit: Int) -> [String] {
            guard let text else { return [] }
            var kept: [String] = []
            for word in SearchText.words(in: text) where word.folded.utf8.count <= Self.longestWord {
                kept.append(word.folded)
                if kept.count == limit { break }
            }
            return kept
        }
        self.title = words(title, limit: Self.titleWords)
        self.body = words(text, limit: Self.bodyWords)
        self.author = words(author, limit: Self.otherWords)
        self.link = words(url.map(Self.hostAndPath), limit: Self.otherWords)
        self.feed = words(feed, limit: Self.otherWords)
    }

    package init(_ entry: Entry) {
        self.init(title: entry.title, text: entry.text, author: entry.author, url: entry.url, feed: entry.feed)
    }

    /// A URL without its scheme, query and fragment: what of it names a page.
    static func hostAndPath(_ url: String) -> String {
        var rest = Substring(url)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        return String(rest)
    }

    /// The words of `field` (`.any`: every field but the feed's name, in turn).
    package func fields(_ field: SearchQuery.Field) -> [[String]] {
        switch field {
        case .any: [title, body, author, link]
        case .title: [title]
        case .author: [author]
        case .feed: [feed]
        }
    }

    /// Whether the entry matches `query` (an empty query matches nothing).
    package func matches(_ query: SearchQuery) -> Bool {
        !query.isEmpty && query.clauses.allSatisfy { clause in clause.contains(where: matches) }
    }

    /// Whether `term` holds (a negated term: its words are not there).
    package func matches(_ term: SearchQuery.Term) -> Bool {
        (occurrences(of: term) > 0) != term.isNegated
    }

    /// How many times the term's words stand in its fields, a title's counting ten times: the
    /// in-memory scan's rank (the engines have their own).
    package func score(_ query: SearchQuery) -> Double {
        query.shownTerms.reduce(0) { total, term in
            var inTitle = term
            inTitle.field = .title
            let titled = term.field == .any || term.field == .title ? occurrences(of: inTitle) : 0
            return total + Double(occurrences(of: term) + 9 * titled)
        }
    }

    /// How many times the term's words stand, in order, in one of its fields.
    private func occurrences(of term: SearchQuery.Term) -> Int {
        guard let last = term.words.last else { return 0 }
        let leading = term.words.dropLast()
        var count = 0
        for words in fields(term.field) where words.count >= term.words.count {
            for start in 0...(words.count - term.words.count) {
                guard zip(words[start...], leading).allSatisfy({ $0 == $1 }) else { continue }
                let final = words[start + leading.count]
                if term.isPrefix ? final.hasPrefix(last) : final == last { count += 1 }
            }
        }
        return count
    }
}
