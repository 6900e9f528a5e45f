import ArgumentParser
import FeedModel
import FeedTerminal

/// `feedcli sync [FEED…]`: prints the new entries of every named feed (all when none), goes on
/// past failing feeds (one stderr line each) and exits with the most serious failure's code.
/// Each feed's entries are printed as one block as soon as they are fetched, and committed
/// once printed.
public struct Sync: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch new entries of the feeds (all when none is named), store them unread, print them.",
        discussion: """
            Into a pipe, an entry counts once the reader took it: `feedcli sync | head -5` stores the five it \
            took, exits 74, and the rest come again with the next sync. To look at what is new without taking \
            it: `feedcli sync --quiet >/dev/null; feedcli list --unread`.
            """)
    @Argument(help: "The feeds.", completion: .feedNames) var feeds: [String] = []
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var fetching: FetchingOptions
    @OptionGroup var exec: ExecOptions
    @Flag(help: "Leave a feed another run is syncing to that run instead of waiting for it (-v names it).")
    var skipBusy = false

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output, fetching: fetching) }

    public func validate() throws {
        try exec.validate(with: output)
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        var context = context
        context.fetch.skipBusy = skipBusy
        let progress = context.showsProgress ? ProgressLine(sink: context.stderr) : nil
        let printer = EntryPrinter(
            format: context.format, layout: .list, sink: context.stdout,
            interruption: context.interruption, progress: progress, patience: context.readerPatience)
        let state = try context.runReactor(
            .sync(feeds: feeds), output: context.entryOutput(printer, exec: exec), progress: progress)
        context.reportFeedFailures(state)
        // An interrupted run still ends its JSON array; an output that failed takes nothing more.
        try context.finishPrinting(printer, after: state)
        if let status = context.runFailure(state) { return status }
        let failed = state.feeds.values.filter { $0.failure != nil }.count
        let new = state.newEntryCount
        // Nothing new and nothing failed prints nothing at all (contract), summary included.
        if context.showsProgress, state.feeds.count > 1, new > 0 || failed > 0 {
            // A courtesy on a terminal, like the progress line: a stderr that fails changes nothing.
            try? context.stderr.write(
                "feedcli: \(state.feeds.count) feeds, \(new) new \(new == 1 ? "entry" : "entries")"
                    + (failed > 0 ? ", \(failed) failed" : "") + "\n")
        }
        return FeedFailure.mostSerious(state.failures)?.exitCode ?? 0
    }
}
