import FoundationEssentials

/// The names closest to a mistyped one, for "did you mean" hints (a feed name, a command).
public enum NearestNames {
    /// The candidates within a few edits of `word` (at most 2, or a third of its length), nearest
    /// first, at most `limit` of them.
    public static func of(_ word: String, among candidates: [String], limit: Int = 3) -> [String] {
        let allowed = max(2, word.count / 3)
        var near: [(name: String, edits: Int)] = []
        for candidate in candidates where candidate != word {
            let edits = distance(candidate, word)
            if edits <= allowed { near.append((candidate, edits)) }
        }
        near.sort { ($0.edits, $0.name) < ($1.edits, $1.name) }
        return near.prefix(limit).map(\.name)
    }

    /// "; did you mean `a` or `b`?", or nothing when no candidate is near.
    public static func hint(for word: String, among candidates: [String]) -> String {
        let near = of(word, among: candidates).map { "`\($0)`" }
        guard let last = near.last else { return "" }
        return "; did you mean " + (near.count == 1 ? last : near.dropLast().joined(separator: ", ") + " or " + last)
            + "?"
    }

    /// Levenshtein distance, in characters.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
