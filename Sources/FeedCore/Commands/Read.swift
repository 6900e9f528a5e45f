import ArgumentParser

/// `feedcli read ID… [--feed FEED]`: ids or handles marked read, in one transaction; 66 and
/// nothing changed when one names no entry. `read --all [FEED…]`: every entry of the feeds (all
/// feeds when none). No network.
public struct Read: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Mark entries read (ids or handles), or with --all every entry of the feeds; no network.")
    @Argument(help: "Ids or handles (@42); with --all, feeds (all when none).", completion: .feedNamesAfterAll)
    var references: [String] = []
    @Option(help: "The entries' feed.", completion: .feedNames) var feed: String?
    @Flag(help: "Every entry of the named feeds (all feeds when none).") var all = false
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func validate() throws {
        if !all, references.isEmpty { throw ValidationError("name the entries to mark read, or use --all") }
        if all, feed != nil { throw ValidationError("with --all, name the feeds as arguments") }
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        let store = try context.openStore()
        if all {
            _ = try store.markAllRead(feeds: references)
        } else {
            _ = try store.setRead(true, references: references, feed: feed)
        }
        return 0
    }
}
