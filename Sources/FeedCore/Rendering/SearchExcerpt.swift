import FeedModel

/// A few words of an entry around the first place its text matches a search, the matched words
/// marked: what `search` shows of each match. Taken from the text as `show` renders it (HTML as
/// text); when the text does not hold the match (a title's or an author's), its first words.
package enum SearchExcerpt {
    /// How matched words are marked: bold on a terminal, brackets elsewhere, nothing in JSON.
    package enum Marks: Sendable {
        case bold, brackets, none

        var around: (String, String) {
            switch self {
            case .bold: ("\u{1B}[1m", "\u{1B}[22m")
            case .brackets: ("[", "]")
            case .none: ("", "")
            }
        }
    }

    /// Words shown before the first match, and in all.
    static let before = 6
    static let wordsShown = 24

    /// The excerpt of `entry` for `query`, on one line.
    package static func of(_ entry: Entry, query: SearchQuery, marks: Marks) -> String {
        guard let raw = entry.text, !raw.isEmpty else { return "" }
        let text = HTMLText.looksLikeHTML(raw) ? HTMLText.render(raw).text : raw
        let words = SearchText.words(in: text)
        guard !words.isEmpty else { return "" }
        let terms = query.shownTerms.filter { $0.field == .any }
        let matched = matchedWords(words.map(\.folded), terms: terms)
        let first = matched.min() ?? 0
        let start = max(0, first - before)
        let end = min(words.count, start + wordsShown)
        let (open, close) = marks.around
        var line = start > 0 ? "…" : ""
        var cursor = words[start].range.lowerBound
        /// A piece of the text on one line, with nothing a terminal would act on.
        func oneLine(_ piece: Substring) -> String {
            TerminalText.safe(String(piece.map { $0.isNewline || $0 == "\t" ? " " : $0 }))
        }
        // Marked words with only spaces between them (a phrase) are marked as one.
        var marking = false
        for index in start..<end {
            let word = words[index]
            let isMarked = matched.contains(index)
            let gap = text[cursor..<word.range.lowerBound]
            if marking && !(isMarked && gap.allSatisfy(\.isWhitespace)) {
                line += close
                marking = false
            }
            line += oneLine(gap)
            if isMarked && !marking {
                line += open
                marking = true
            }
            line += oneLine(text[word.range])
            cursor = word.range.upperBound
        }
        if marking { line += close }
        if end < words.count { line += "…" }
        return line
    }

    /// The indexes of the words that the terms' words (phrases in order, prefixes) stand at.
    private static func matchedWords(_ words: [String], terms: [SearchQuery.Term]) -> Set<Int> {
        var matched = Set<Int>()
        for term in terms {
            guard let last = term.words.last, words.count >= term.words.count else { continue }
            for start in 0...(words.count - term.words.count) {
                let leading = zip(words[start...], term.words.dropLast()).allSatisfy { $0 == $1 }
                let final = words[start + term.words.count - 1]
                guard leading, term.isPrefix ? final.hasPrefix(last) : final == last else { continue }
                matched.formUnion(start..<(start + term.words.count))
            }
        }
        return matched
    }
}
