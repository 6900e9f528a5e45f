/// A query as people type it into a search box (the syntax of PostgreSQL's
/// `websearch_to_tsquery`): words, every one of which must match; `"a phrase"`; `-word`, which
/// must not match; `word OR word`; `word*`, a prefix; `title:`, `author:`, `feed:` for one field.
///
/// Parsing never fails: whatever the text, it is words and these few signs, and anything else is
/// a separator. The words are `SearchText`'s (folded, CJK a character a word), so that the index
/// and the query agree; each engine gets its own spelling of the result (`FTS5Plan` in
/// `Store/FeedStore+Search.swift`, `PostgresSearch`), made from words only, never from the user's text, so that no input
/// becomes a syntax error of an engine's query language.
package struct SearchQuery: Equatable, Sendable {
    /// What a term is matched against.
    package enum Field: String, Sendable, CaseIterable {
        /// The title, the text, the author and the URL's host and path.
        case any
        case title
        case author
        /// The feed's name.
        case feed
    }

    /// One word, or a phrase of words next to each other, in one field.
    package struct Term: Equatable, Sendable {
        package var field: Field
        /// Folded words; more than one: a phrase.
        package var words: [String]
        /// Whether the last word is a prefix (`word*`).
        package var isPrefix: Bool
        /// Whether the term must not match (`-word`).
        package var isNegated: Bool

        package init(field: Field = .any, words: [String], isPrefix: Bool = false, isNegated: Bool = false) {
            self.field = field
            self.words = words
            self.isPrefix = isPrefix
            self.isNegated = isNegated
        }
    }

    /// Every clause must match; a clause matches when one of its terms does (`a OR b`).
    package var clauses: [[Term]]

    package init(clauses: [[Term]]) {
        self.clauses = clauses
    }

    /// Whether the query holds no term (a query of signs only): it matches nothing.
    package var isEmpty: Bool { clauses.isEmpty }

    /// The terms that must match, for excerpts: the words a match is shown by.
    package var shownTerms: [Term] {
        clauses.flatMap { $0.filter { !$0.isNegated } }
    }

    /// The query `text` says.
    package static func parse(_ text: String) -> SearchQuery {
        var clauses: [[Term]] = []
        var joinsPrevious = false
        for item in items(of: text) {
            if item == .or {
                joinsPrevious = !clauses.isEmpty
                continue
            }
            guard case .term(let term) = item else { continue }
            if joinsPrevious, let last = clauses.indices.last {
                clauses[last].append(term)
            } else {
                clauses.append([term])
            }
            joinsPrevious = false
        }
        return SearchQuery(clauses: clauses)
    }

    private enum Item: Equatable {
        case term(Term)
        case or
    }

    /// The terms and `OR`s of `text`, in order; a term without words (signs only) is left out.
    private static func items(of text: String) -> [Item] {
        var items: [Item] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            if characters[index].isWhitespace {
                index += 1
                continue
            }
            var negated = false
            if characters[index] == "-", index + 1 < characters.count, !characters[index + 1].isWhitespace {
                negated = true
                index += 1
            }
            var field = Field.any
            if let (named, after) = fieldPrefix(characters, at: index) {
                field = named
                index = after
            }
            var raw = ""
            var quoted = false
            if index < characters.count, characters[index] == "\"" {
                quoted = true
                index += 1
                while index < characters.count, characters[index] != "\"" {
                    raw.append(characters[index])
                    index += 1
                }
                index += 1  // the closing quote (or past the end)
            } else {
                while index < characters.count, !characters[index].isWhitespace, characters[index] != "\"" {
                    raw.append(characters[index])
                    index += 1
                }
            }
            if !quoted, !negated, field == .any, raw == "OR" {
                items.append(.or)
                continue
            }
            let words = SearchText.folded(raw)
            guard !words.isEmpty else { continue }
            let isPrefix = !quoted && raw.hasSuffix("*")
            items.append(.term(Term(field: field, words: words, isPrefix: isPrefix, isNegated: negated)))
        }
        return items
    }

    /// `title:`, `author:` or `feed:` (any case) at `index`, directly followed by what it applies
    /// to; the field and where that starts.
    private static func fieldPrefix(_ characters: [Character], at index: Int) -> (Field, Int)? {
        for field in [Field.title, .author, .feed] {
            let name = Array(field.rawValue)
            let end = index + name.count
            guard end + 1 < characters.count, characters[end] == ":", !characters[end + 1].isWhitespace else {
                continue
            }
            if zip(characters[index..<end], name).allSatisfy({ $0.lowercased() == String($1) }) {
                return (field, end + 1)
            }
        }
        return nil
    }
}
