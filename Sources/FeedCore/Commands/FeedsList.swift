import ArgumentParser

/// `feedcli feeds list`: each feed's details (`status` is the one-line overview); on a store with
/// no feed but the built-in one, plain output says how to add one.
public struct FeedsList: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the feeds and their state.")
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output) }

    public func run(_ context: CommandContext) throws -> Int32 {
        context.printStatus(feeds: [], hintsWhenBare: true, detailed: true)
    }
}
