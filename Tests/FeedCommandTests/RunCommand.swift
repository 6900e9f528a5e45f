import FeedTesting
import Testing

@testable import FeedCore

/// Runs `command` with `arguments` (what follows the command's name on a command line) in
/// `context`, as the executable would after parsing, on a thread of its own (a command blocks
/// until its reactor is done): its exit status. A line the command does not parse is a failure
/// of the test that wrote it (-1).
func runCommand<Command: FeedcliCommand>(
    _ command: Command.Type, _ arguments: [String], _ context: CommandContext,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> Int32 {
    let outcome: Result<Int32, ParseFailure> = await onOwnThread {
        do {
            return .success(try command.parse(arguments).execute(context))
        } catch {
            return .failure(ParseFailure(message: command.message(for: error)))
        }
    }
    switch outcome {
    case .success(let status):
        return status
    case .failure(let failure):
        Issue.record("\(command) \(arguments) does not parse: \(failure.message)", sourceLocation: sourceLocation)
        return -1
    }
}

struct ParseFailure: Error {
    var message: String
}

/// `next` of `feed` in `context`, as `Next` runs it, on a thread of its own: its exit status.
func runNext(feed: String?, _ context: CommandContext) async -> Int32 {
    await onOwnThread { Next.run(feed: feed, context) }
}
