import ArgumentParser

/// The shell completion scripts feedcli ships (`--generate-completion-script SHELL`, the Debian
/// package, `scripts/install.sh`): swift-argument-parser's, with what they get wrong for feedcli
/// put right, and the requests they send back read as they mean.
///
/// - bash: the script completes with `-o filenames`, so a feed name that is also a folder's
///   name in the current directory was offered as `name/`. Feed names are completed with that
///   option turned off (`compopt +o filenames`), file names (`feeds import`) keep it.
/// - `help <TAB>` offers the commands (the parser's scripts offer nothing there).
/// - fish 3.x: its script asks `feedcli ---completion … -- ARG INDEX` without the cursor's
///   index inside the word (`commandline -tC` gives nothing there), which the parser refuses;
///   `CompletionScripts.request(_:)` supplies it (the end of the word), so fish completes names.
public enum CompletionScripts {
    /// The script for `shell`.
    public static func script(for shell: CompletionShell) -> String {
        let script = Feedcli.completionScript(for: shell)
        let commands = Feedcli.configuration.subcommands.map { $0.configuration.commandName ?? "" }.filter {
            !$0.isEmpty
        }
        .joined(separator: " ")
        switch shell {
        case .bash:
            return script.replacing(
                #"__feedcli_add_completions -W "$(__feedcli_custom_complete ---completion"#,
                with:
                    #"compopt +o filenames 2>/dev/null; __feedcli_add_completions -W "$(__feedcli_custom_complete ---completion"#
            )
            // `help COMMAND`: the parser's script offers nothing there.
            .replacing(
                "_feedcli_help() {\n",
                with: "_feedcli_help() {\n    __feedcli_add_completions -W \"$(printf '%s\\n' \(commands))\"\n")
        case .zsh:
            // `help COMMAND`: the parser's script offers nothing there.
            return script.replacing("'*:subcommands:'", with: "'*:subcommands:(\(commands))'")
        case .fish:
            return script + (script.hasSuffix("\n") ? "" : "\n")
                + "complete -c 'feedcli' -n '__feedcli_should_offer_completions_for_positional \"feedcli help\" -ge 1' "
                + "-fa '\(commands)'\n"
        default:
            return script
        }
    }

    /// A `---completion` request made whole: `---completion [SUBCOMMAND…] -- ARG INDEX CURSOR
    /// WORD…`, with CURSOR (the cursor's place in the word being completed, which the parser
    /// takes to be the last: its end) put in when the shell left it out. Any other line is
    /// returned as it is.
    public static func request(_ arguments: [String]) -> [String] {
        guard arguments.first == "---completion", let separator = arguments.firstIndex(of: "--") else {
            return arguments
        }
        let indexPosition = separator + 2
        guard arguments.indices.contains(indexPosition), Int(arguments[indexPosition]) != nil else { return arguments }
        let cursorPosition = indexPosition + 1
        if arguments.indices.contains(cursorPosition), Int(arguments[cursorPosition]) != nil { return arguments }
        let completing = arguments.count > cursorPosition ? arguments[arguments.count - 1] : ""
        var whole = arguments
        whole.insert(String(completing.count), at: cursorPosition)
        return whole
    }
}
