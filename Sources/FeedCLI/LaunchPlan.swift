import ArgumentParser
import FeedCore

/// What the executable does with its command line: the one look at it before swift-argument-parser
/// parses it, so that nothing else reads argv by hand. A mistyped command is caught (64 with the
/// nearest name, `CommandSpelling`), feedcli's own completion scripts are printed in place of the
/// parser's (`CompletionScripts`), and the plainest `next` line runs without the parser
/// (`PlainNextCommandLine`: the parser's reflection is a tenth of a `next`); every other line is
/// the parser's.
enum LaunchPlan: Equatable {
    /// A mistyped command: the message.
    case mistake(String)
    /// `--generate-completion-script SHELL`: feedcli's script for the shell.
    case completionScript(CompletionShell)
    /// Bare `feedcli`: a short usage, then the overview of the feeds (`status`).
    case overview
    /// The plainest `next`, with what it names.
    case plainNext(PlainNextCommandLine)
    /// Any other line, as the parser reads it (a shell's completion request made whole).
    case parse([String])

    /// `arguments` is the command line without the program's name.
    init(_ arguments: [String]) {
        if let mistake = CommandSpelling.check(arguments, in: Feedcli.configuration) {
            self = .mistake(mistake)
        } else if let shell = Self.requestedScript(arguments) {
            self = .completionScript(shell)
        } else if arguments.isEmpty {
            self = .overview
        } else if let line = PlainNextCommandLine(arguments) {
            self = .plainNext(line)
        } else {
            self = .parse(CompletionScripts.request(arguments))
        }
    }

    /// The store the line names before any parsing (the plainest `next`'s `--state`); nil for
    /// every other line, whose store the parser reads.
    var namedStore: String? {
        guard case .plainNext(let line) = self else { return nil }
        return line.statePath
    }

    /// `--generate-completion-script SHELL` (or `=SHELL`) alone on the line: the shell.
    static func requestedScript(_ arguments: [String]) -> CompletionShell? {
        let option = "--generate-completion-script"
        switch arguments.count {
        case 2 where arguments[0] == option: return CompletionShell(rawValue: arguments[1])
        case 1 where arguments[0].hasPrefix(option + "="):
            return CompletionShell(rawValue: String(arguments[0].dropFirst(option.count + 1)))
        default: return nil
        }
    }
}
