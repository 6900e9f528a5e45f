import FoundationEssentials

/// How a person names an entry on the command line: its id as the feed sent it, or the short
/// handle plain output shows (`@42`, the store's number for it), which needs no shell quoting
/// even when ids are URLs. A handle is tried first; an id that happens to look like one still
/// works when no entry has that number.
public enum EntryReference {
    /// The store number in `@SEQ`, or nil when `text` is not a handle.
    public static func handle(_ text: String) -> Int64? {
        guard text.hasPrefix("@") else { return nil }
        return Int64(text.dropFirst())
    }
}
