import ArgumentParser
import FeedModel
import FeedReactor
import FeedTerminal

/// `feedcli next [FEED]`: prints the oldest unread entry (fetching when none is unread) and then
/// marks it read. 0 when one was printed, 1 when there was none, else the failure's code. With
/// no feed: `posts` while it is the only feed, else as `next --all`. `next --all [FEED…]`: the
/// oldest unread entry of the named feeds (all when none) by publication, syncing those that
/// are due only when none has anything unread.
public struct Next: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "Print the oldest unread entry and mark it read (exit 1 when there is none).")
    @Argument(
        help: ArgumentHelp(
            "The feed (with --all, the feeds). None: posts while it is the only feed, else as --all.",
            valueName: "feed"), completion: .feedNames)
    var feeds: [String] = []
    @Flag(
        help:
            "The oldest unread entry of all (or the named) feeds by publication; syncs those due when nothing is unread."
    )
    var all = false
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var fetching: FetchingOptions
    @OptionGroup var exec: ExecOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output, fetching: fetching) }

    public func validate() throws {
        if !all, feeds.count > 1 { throw ValidationError("name one feed, or use --all for several") }
        try exec.validate(with: output)
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        try Self.deliverOne(all ? .nextOfAll(feeds: feeds) : .next(feed: feeds.first), exec: exec, context: context)
    }

    /// `next [FEED]` with every option at its default: what the executable's fast path for the
    /// plainest command line runs (`PlainNextCommandLine`), without parsing.
    public static func run(feed: String?, _ context: CommandContext) -> Int32 {
        do {
            return try deliverOne(.next(feed: feed), exec: nil, context: context)
        } catch {
            return context.fail(error)
        }
    }

    /// `exec`: nil on the fast path (an option group that was never parsed cannot be read).
    private static func deliverOne(_ action: FeedAction, exec: ExecOptions?, context: CommandContext) throws -> Int32 {
        let progress = context.showsProgress ? ProgressLine(sink: context.stderr) : nil
        let printer = EntryPrinter(
            format: context.format, layout: .detailed, sink: context.stdout,
            interruption: context.interruption, progress: progress, patience: context.readerPatience)
        let state = try context.runReactor(action, output: context.entryOutput(printer, exec: exec), progress: progress)
        if let status = context.runFailure(state) { return status }
        if !state.delivered.isEmpty { return 0 }
        context.reportFeedFailures(state)
        guard let failure = FeedFailure.mostSerious(state.failures) else {
            // A person at a terminal is told; cron (stderr a file or a pipe) stays silent.
            if context.stderr.isTerminal { try? context.stderr.write("feedcli: nothing unread\n") }
            return 1
        }
        return failure.exitCode
    }
}
