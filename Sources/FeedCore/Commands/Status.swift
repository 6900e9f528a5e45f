import ArgumentParser
import FeedModel
import FeedRendering

/// `feedcli status [FEED…]`: one line a feed (plain), or each feed's whole state (`--json`),
/// through the reactor; no network. `feeds list` shows the details, and bare `feedcli` this
/// overview under a short usage.
public struct Status: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "One line a feed: unread/total, last fetch, next fetch, and a mark for a failure, skipped items or a filter that kept out everything; --json: all of each feed's state."
    )
    @Argument(help: "Only these feeds (all when none).", completion: .feedNames) var feeds: [String] = []
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output) }

    public func run(_ context: CommandContext) throws -> Int32 {
        context.printStatus(feeds: feeds)
    }
}
