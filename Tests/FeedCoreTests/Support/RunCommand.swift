@testable import FeedCore
import Testing

/// Runs `command` with `arguments` (what follows the command's name on a command line) in
/// `context`, as the executable would after parsing: its exit status. A line the command does
/// not parse is a failure of the test that wrote it (-1).
func runCommand<Command: FeedcliCommand>(
    _ command: Command.Type, _ arguments: [String], _ context: CommandContext, sourceLocation: SourceLocation = #_sourceLocation
) -> Int32 {
    do {
        return try command.parse(arguments).execute(context)
    } catch {
        Issue.record("\(command) \(arguments) does not parse: \(command.message(for: error))", sourceLocation: sourceLocation)
        return -1
    }
}
