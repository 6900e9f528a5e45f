import ArgumentParser

/// One feedcli command: its options (swift-argument-parser reads them) and what it does with a
/// context, together in the command's file, as SwiftPM's commands are.
///
/// The executable parses the command line, makes the context once from the command's
/// `options` (`Invocation.context(_:)`) and calls `execute(_:)`; tests parse a command line and
/// call `execute(_:)` with a context of their own. Commands never call one another: what two
/// share is a function on `CommandContext` or a type of the layers below.
public protocol FeedcliCommand: ParsableCommand {
    /// The option groups the command's context is made of. Spelled out by every command (no
    /// default), so that no group a command declares is left out of its context.
    var options: CommandOptions { get }

    /// The command's work: its exit status (0, or 1 for `next` with nothing new, or a failure's
    /// code). What it throws is said on stderr and becomes its exit status (`execute`).
    func run(_ context: CommandContext) throws -> Int32
}

extension FeedcliCommand {
    /// Runs the command in `context`: the status `run` returns, or the one of what it threw,
    /// said on stderr (130 when the run was interrupted, whatever it threw).
    public func execute(_ context: CommandContext) -> Int32 {
        do {
            return try run(context)
        } catch {
            return context.fail(error)
        }
    }
}
