import FeedModel

/// Search on PostgreSQL: each entry's folded words (`SearchDocument`) as a `tsvector` literal,
/// a query's as a `tsquery` literal, both written by feedcli and cast by the server, which
/// parses neither with a text search configuration: the lexemes are exactly SQLite's tokens, so
/// both stores match alike (a configuration would stem, drop emoji and split otherwise).
///
/// Weights name the fields: the title A, the text B, the author C, the URL's host and path D;
/// a feed's name is lexemes of their own (`feed:name`: no folded word holds a colon). Fields
/// stand two positions apart, so that no phrase runs from one into the next; positions stop at
/// 16,383 (the type's last) and a lexeme keeps at most 256 of them (its most).
enum PostgresSearch {
    /// `document` as a `tsvector` literal.
    static func vector(_ document: SearchDocument) -> String {
        var positions: [String: [String]] = [:]
        var order: [String] = []
        var next = 1
        func add(_ words: [String], weight: String, prefix: String = "") {
            for word in words {
                let lexeme = prefix + word
                if positions[lexeme] == nil { order.append(lexeme) }
                if positions[lexeme, default: []].count < 256 {
                    positions[lexeme, default: []].append("\(min(next, 16_383))\(weight)")
                }
                next += 1
            }
            next += 2
        }
        add(document.title, weight: "A")
        add(document.author, weight: "C")
        add(document.link, weight: "D")
        add(document.feed, weight: "D", prefix: "feed:")
        add(document.body, weight: "B")
        return order.map { quoted($0) + ":" + (positions[$0] ?? []).joined(separator: ",") }.joined(separator: " ")
    }

    /// `query` as a `tsquery` literal; nil when it is empty (it matches nothing).
    static func query(_ query: SearchQuery) -> String? {
        guard !query.isEmpty else { return nil }
        return query.clauses.map { clause in
            "(" + clause.map { term in (term.isNegated ? "!" : "") + "(" + spelt(term) + ")" }.joined(separator: " | ")
                + ")"
        }.joined(separator: " & ")
    }

    /// One term: its words as a phrase (`<->`), each restricted to its field's weight.
    private static func spelt(_ term: SearchQuery.Term) -> String {
        let weight =
            switch term.field {
            case .any, .feed: ""
            case .title: "A"
            case .author: "C"
            }
        let prefix = term.field == .feed ? "feed:" : ""
        return term.words.enumerated().map { index, word in
            let last = index == term.words.count - 1
            let marks = (last && term.isPrefix ? "*" : "") + weight
            return quoted(prefix + word) + (marks.isEmpty ? "" : ":" + marks)
        }.joined(separator: " <-> ")
    }

    /// A lexeme quoted for either literal.
    private static func quoted(_ lexeme: String) -> String {
        "'" + lexeme.replacing("\\", with: "\\\\").replacing("'", with: "''") + "'"
    }
}
