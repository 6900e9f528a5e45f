import ArgumentParser
import FoundationEssentials

/// Where the store is and how long to wait for another run: every command takes these.
public struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The state store, a file or a postgresql:// URL (default: $FEEDCLI_STATE, else $XDG_STATE_HOME/feedcli/feedcli.sqlite).",
            valueName: "path"))
    public var state: String?

    @Option(help: ArgumentHelp("Seconds to wait for another feedcli run on the same feed.", valueName: "seconds"))
    public var wait = Double(CommandContext.defaultWait.components.seconds)

    public init() {}

    public func validate() throws {
        guard wait >= 0, wait <= 86_400 else { throw ValidationError("--wait must be between 0 and 86400 seconds") }
    }

    /// `--wait` as a duration, rounded up to the millisecond.
    var waitDuration: Duration { .milliseconds(Int((wait * 1000).rounded(.up))) }

    /// What a command line not yet parsed says of `--state` (before the parser runs, and in
    /// shell completion, which gets the words typed so far). `arguments` is the command line
    /// without the program's name; a `--` ends the options.
    public static func stateArgument(in arguments: [String]) -> StateArgument {
        var path: String?
        var remaining = arguments.prefix { $0 != "--" }.makeIterator()
        while let argument = remaining.next() {
            let value: String?
            if argument == "--state" {
                value = remaining.next()
            } else if argument.hasPrefix("--state=") {
                value = String(argument.dropFirst("--state=".count))
            } else {
                continue
            }
            guard path == nil, let value, !value.isEmpty else { return .unclear }
            path = value
        }
        return path.map(StateArgument.path) ?? .absent
    }

    /// `--state` in a command line not yet parsed.
    public enum StateArgument: Equatable, Sendable {
        /// Not given: the default store.
        case absent
        case path(String)
        /// Given twice, or empty: the parser will say what is wrong.
        case unclear
    }
}
