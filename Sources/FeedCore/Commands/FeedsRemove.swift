import ArgumentParser
import FeedModel

/// `feedcli feeds remove NAME` (or `feeds rm NAME`): the feed and its entries, once no other run
/// is working on it.
public struct FeedsRemove: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a feed and its entries.")
    @Argument(help: "The feed.", completion: .feedNames) var name: String
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func run(_ context: CommandContext) throws -> Int32 {
        let store = try context.openStore()
        do throws(FeedFailure) {
            _ = try store.feed(named: name)
        } catch .storeAccess {
            // A row this feedcli cannot read (expressions a newer feedcli wrote, a hand edit) is
            // still a feed the user can remove; a store that cannot be used fails again just below.
        }
        try store.withFeedLock(name) { () throws(FeedFailure) in try store.removeFeed(named: name) }
        return 0
    }
}

/// `feeds rm`: `remove` under its short name, as a command of its own rather than an alias,
/// because ArgumentParser's completion scripts (bash, zsh, fish) know no aliases: `feeds rm
/// <TAB>` offered subcommand names instead of feeds.
public struct FeedsRemoveShort: FeedcliCommand {
    public static let configuration = CommandConfiguration(commandName: "rm", abstract: "The same as remove.")
    @OptionGroup var remove: FeedsRemove

    public init() {}

    public var options: CommandOptions { remove.options }

    public func run(_ context: CommandContext) throws -> Int32 { try remove.run(context) }
}
