import FeedModel

/// A fetch's commit as both stores write it into a feed's columns: whether a column changes and
/// to what, for the `CASE WHEN changes THEN value ELSE column END` of their bookkeeping update.
extension FetchCommit {
    /// The backfill cursor: whether `resume_url` changes, and its new value (nil clears it).
    package var resumeColumn: (changes: Bool, url: String?) {
        switch resume {
        case .keep: (false, nil)
        case .set(let url): (true, url)
        case .clear: (true, nil)
        }
    }
}

extension FetchCommit.SkipCount {
    /// Whether the count adds to the stored one (else replaces it), and by how much.
    package var column: (adds: Bool, count: Int) {
        switch self {
        case .set(let count): (false, count)
        case .add(let count): (true, count)
        }
    }
}
