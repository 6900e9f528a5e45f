import ArgumentParser
import FeedCore

/// The executable's one look at the command line before swift-argument-parser parses it: a
/// mistyped command (64 with the nearest name, `CommandSpelling`), the plainest `next` line that
/// runs without the parser (`PlainNextCommandLine`), and what the command will need first, to
/// set up on the other core while the parser runs (`LaunchPreparation`). Nothing of the command
/// line reaches the core but through the parsed options and what this hands it.
struct CommandLinePreparse {
    /// A mistyped command's message, or nil when the line names real commands.
    var mistake: String?
    /// The line, when it is the plainest `next`.
    var plainNext: PlainNextCommandLine?
    /// The store the command will most likely open read-write: for `next` and `sync`, the one
    /// `--state` names, else the default; nil when the line gives `--wait` (the guess keeps to
    /// the default wait), names `--state` unclearly, or the command does not fetch.
    var storeGuess: LaunchPreparation.StoreGuess?
    /// Whether the command makes requests (`next`, `sync`, `feeds add`): curl's set-up is started.
    var preparesCurl: Bool

    /// The commands that fetch: they open the store read-write and make an HTTP client.
    static let fetchingCommands: Set<String> = ["next", "sync"]

    /// The line the parser reads: a shell's completion request made whole
    /// (`CompletionScripts.request`), any other line as given.
    var arguments: [String]
    /// The shell whose completion script was asked for (`--generate-completion-script SHELL`):
    /// feedcli's, printed instead of the parser's own (`CompletionScripts`).
    var completionScript: CompletionShell?

    /// `arguments` is the command line without the program's name.
    init(_ arguments: [String], environment: [String: String]) {
        self.arguments = CompletionScripts.request(arguments)
        completionScript = Self.requestedScript(arguments)
        mistake = CommandSpelling.check(arguments, in: Feedcli.configuration)
        plainNext = PlainNextCommandLine(arguments)
        // Options come after the command's name, so the first word that is not an option is it.
        let words = arguments.prefix { $0 != "--" }.filter { !$0.hasPrefix("-") }
        let fetches = Self.fetchingCommands.contains(words.first ?? "")
        preparesCurl = fetches || words.starts(with: ["feeds", "add"])
        storeGuess = fetches ? Self.guessStore(arguments, environment: environment) : nil
    }

    /// `--generate-completion-script SHELL` (or `=SHELL`) alone on the line: the shell.
    static func requestedScript(_ arguments: [String]) -> CompletionShell? {
        let option = "--generate-completion-script"
        switch arguments.count {
        case 2 where arguments[0] == option: return CompletionShell(rawValue: arguments[1])
        case 1 where arguments[0].hasPrefix(option + "="): return CompletionShell(rawValue: String(arguments[0].dropFirst(option.count + 1)))
        default: return nil
        }
    }

    /// The store `--state` names, else the default one, at the default wait; nil when the line
    /// gives `--wait` or names `--state` unclearly.
    static func guessStore(_ arguments: [String], environment: [String: String]) -> LaunchPreparation.StoreGuess? {
        let options = arguments.prefix { $0 != "--" }
        if options.contains(where: { $0 == "--wait" || $0.hasPrefix("--wait=") }) { return nil }
        let path: String
        switch StoreOptions.stateArgument(in: arguments) {
        case .absent: path = CommandContext.defaultStatePath(environment: environment)
        case .path(let given): path = given
        case .unclear: return nil
        }
        return LaunchPreparation.StoreGuess(path: path, wait: CommandContext.defaultWait)
    }
}
