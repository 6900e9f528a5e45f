import FeedModel
import FeedRendering

extension CommandContext {
    /// The feeds' state on stdout: the overview, or with `detailed` (`feeds list`) each feed's
    /// details; `hintsWhenBare` says, in plain output, how to add a first feed; `preamble` goes
    /// first (bare `feedcli`'s usage).
    public func printStatus(feeds: [String], hintsWhenBare: Bool = false, detailed: Bool = false, preamble: String = "")
        -> Int32
    {
        paging { (context: CommandContext) throws -> Int32 in
            let state = try context.loadStatus(feeds: feeds)
            if let failure = FeedFailure.mostSerious(state.failures) { throw failure }
            let statuses = state.feeds.keys.sorted().compactMap { state.feeds[$0] }
            var bytes = Array(preamble.utf8)
            // `status` is the one-line-a-feed overview; `feeds list` the details.
            bytes +=
                context.format == .plain && !detailed
                ? StatusOverview.render(statuses, now: context.now(), width: context.stdout.columns)
                : StatusRenderer.render(statuses, format: context.format)
            if hintsWhenBare, context.format == .plain,
                statuses.allSatisfy({ $0.name == FeedRegistration.defaultFeed.name })
            {
                bytes += Array(
                    ("\nNo feeds of your own yet. Add one: feedcli feeds add NAME URL"
                        + " (the kind is found out when --kind is left out)\n").utf8)
            }
            return context.writeReading(bytes)
        }
    }
}
