import FoundationEssentials

/// How commands print data: for people, one JSON value, or JSON Lines.
public enum OutputFormat: String, Sendable, CaseIterable {
    case plain
    case json
    case jsonl
}
