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

/// How `follow` prints: plain text or `--jsonl`. A session has no end to close one JSON value
/// with, so `--json` is not offered (its help is hidden); given anyway, `validate` refuses it
/// with the reason.
public struct StreamOutputOptions: ParsableArguments {
    @Flag(help: "Print JSON Lines: one compact object per line.")
    public var jsonl = false

    @Flag(help: .hidden) var json = false

    public init() {}

    /// The output options a context is made with.
    public var output: OutputOptions {
        var output = OutputOptions()
        output.format = jsonl ? .jsonl : nil
        return output
    }

    public func validate() throws {
        if json {
            throw ValidationError("--json prints one array, and a stream has no end: use --jsonl (one entry a line)")
        }
    }
}
