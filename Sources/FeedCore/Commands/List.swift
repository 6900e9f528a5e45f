import ArgumentParser
import FeedRendering
import FeedStore
import FeedStoreContract

/// `feedcli list [FEED…]`: streams the stored entries of the feeds (all when none), oldest first:
/// one feed in its own order, several by publication across them; no network.
public struct List: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print stored entries, oldest first; no network.")
    @Argument(help: "Only these feeds (all when none).", completion: .feedNames) var feeds: [String] = []
    @Flag(name: .shortAndLong, help: "Only unread entries.") var unread = false
    // Unconditional: `--limit -3` is a value to refuse by name, not a missing one.
    @Option(name: [.customShort("n"), .long], parsing: .unconditional, help: "Only the newest N entries.") var limit:
        Int?
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output) }

    public func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        context.paging { (context: CommandContext) throws -> Int32 in
            let width = context.stdout.columns
            let store = try context.openStore(access: .readOnly)
            for feed in feeds { _ = try store.feed(named: feed) }
            var count = 0
            return try context.stream(
                begin: [], end: { EntryRenderer.end(count: count, format: context.format, layout: .list) }
            ) { each in
                // One feed in its own order (the order `next FEED` delivers in); several, or all,
                // by publication across them (the order `next --all` delivers in).
                let order: EntryOrder = feeds.count == 1 ? .stored : .published
                try store.forEachEntry(feeds: feeds, unreadOnly: unread, limit: limit, newestFirst: false, order: order)
                { entry in
                    defer { count += 1 }
                    let number = count
                    return each {
                        EntryRenderer.element(
                            entry, number: number, format: context.format, layout: .list, width: width, into: &$0)
                    }
                }
            }
        }
    }
}
