import ArgumentParser

/// `feedcli unread ID… [--feed FEED]`: ids or handles marked unread, in one transaction, so that
/// `next` delivers them again in their order; 66 and nothing changed when one names no entry.
public struct Unread: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "unread", abstract: "Mark entries unread, so next delivers them again in their order; no network.")
    @Argument(help: "Ids or handles (@42).") var references: [String]
    @Option(help: "The entries' feed.", completion: .feedNames) var feed: String?
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func run(_ context: CommandContext) throws -> Int32 {
        _ = try context.openStore().setRead(false, references: references, feed: feed)
        return 0
    }
}
