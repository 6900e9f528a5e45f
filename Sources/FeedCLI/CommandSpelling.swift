import ArgumentParser
import FeedModel
import FoundationEssentials
import Glibc

/// Catches a mistyped subcommand before the parser sees it: swift-argument-parser suggests
/// close option names but reads an unknown subcommand as a stray argument, and `help X` of an
/// unknown X prints the top-level help with exit 0. Both are usage errors (64) here, with the
/// nearest command named.
enum CommandSpelling {
    /// The message for a mistyped command in `arguments`, or nil when they name real ones.
    static func check(_ arguments: [String], in configuration: CommandConfiguration) -> String? {
        var words = arguments
        if words.first == "help" { words.removeFirst() }
        var commands = configuration.subcommands
        var path: [String] = []
        while let word = words.first, !word.hasPrefix("-"), !commands.isEmpty {
            let names = commands.flatMap { [$0.configuration.commandName ?? ""] + $0.configuration.aliases }
            guard
                let command = commands.first(where: {
                    $0.configuration.commandName == word || $0.configuration.aliases.contains(word)
                })
            else {
                let place = path.isEmpty ? "" : " of `feedcli \(path.joined(separator: " "))`"
                if let nearest = NearestNames.of(word, among: names, limit: 1).first {
                    return "unknown command `\(word)`\(place); did you mean `\(nearest)`?"
                }
                return "unknown command `\(word)`\(place); the commands are: \(names.joined(separator: ", "))"
            }
            path.append(word)
            words.removeFirst()
            commands = command.configuration.subcommands
        }
        return nil
    }
}
