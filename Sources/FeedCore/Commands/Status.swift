import ArgumentParser
import FeedModel
import FeedRendering

/// `feedcli status [FEED]`: one line a feed (plain), or each feed's whole state (`--json`),
/// through the reactor; no network. `feeds list` shows the details, and bare `feedcli` this
/// overview under a short usage.
public struct Status: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Each feed's state: counts, read cursor, last fetch, last error, validators, retry time.")
    @Argument(help: "Only this feed.", completion: .feedNames) var feed: String?
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output) }

    public func run(_ context: CommandContext) throws -> Int32 {
        Self.show(feeds: feed.map { [$0] } ?? [], context: context)
    }

    /// The feeds' state on stdout: the overview, or with `detailed` (`feeds list`) each feed's
    /// details; `hintsWhenBare` says, in plain output, how to add a first feed; `preamble` goes
    /// first (bare `feedcli`'s usage).
    public static func show(
        feeds: [String], hintsWhenBare: Bool = false, detailed: Bool = false, preamble: String = "", context: CommandContext
    ) -> Int32 {
        context.paging { (context: CommandContext) throws -> Int32 in
            let state = try context.loadStatus(feeds: feeds)
            if let failure = FeedFailure.mostSerious(state.failures) { throw failure }
            let statuses = state.feeds.keys.sorted().compactMap { state.feeds[$0] }
            var bytes = Array(preamble.utf8)
            // `status` is the one-line-a-feed overview; `feeds list` the details.
            bytes += context.format == .plain && !detailed
                ? StatusOverview.render(statuses, now: context.now(), width: context.stdout.columns)
                : StatusRenderer.render(statuses, format: context.format)
            if hintsWhenBare, context.format == .plain, statuses.allSatisfy({ $0.name == FeedRegistration.defaultFeed.name }) {
                bytes += Array(("\nNo feeds of your own yet. Add one: feedcli feeds add NAME URL"
                                + " (the kind is found out when --kind is left out)\n").utf8)
            }
            return context.writeReading(bytes)
        }
    }
}
