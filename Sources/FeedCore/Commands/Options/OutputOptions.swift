import ArgumentParser
import FeedRendering

/// `--json` or `--jsonl` (plain text when neither).
public enum DataFormat: String, EnumerableFlag {
    case json
    case jsonl

    public static func help(for value: DataFormat) -> ArgumentHelp? {
        switch value {
        case .json: "Print one JSON value."
        case .jsonl: "Print JSON Lines: one compact object per line."
        }
    }
}

/// How data is printed.
public struct OutputOptions: ParsableArguments {
    @Flag(exclusivity: .exclusive) public var format: DataFormat?

    public init() {}

    public var outputFormat: OutputFormat {
        switch format {
        case .json: .json
        case .jsonl: .jsonl
        case nil: .plain
        }
    }
}
