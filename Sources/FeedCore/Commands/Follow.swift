import ArgumentParser
import FeedModel
import FeedReactive
import FeedReactor
import FeedTerminal

/// `feedcli follow [FEED…]`: follows the feeds (every feed when none is named) in one output:
/// stream feeds live (each new entry printed as it arrives and committed once printed, in groups
/// of what arrived together; reconnecting after every drop from the last event id), polled
/// feeds synced whenever they are due (`--every`, else every 15 minutes), until Ctrl-C, SIGTERM
/// or a limit ends the session: then 0, with everything printed committed. A feed that starts
/// failing is said on stderr at once (`FeedHealthLines`: then an hourly reminder at most, and
/// its recovery) and the others go on; the status is the most serious failure of the feeds
/// still failing at the end. With `--exec`, a feed whose command failed is tried again after
/// 1 s, doubling up to 5 minutes.
public struct Follow: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract:
            "Print new entries of the feeds as they come (every feed when none is named: streams live, others when due), until stopped.",
        discussion: """
            Polled feeds are synced when due as `feedcli sync` syncs them (--max-pages, --force, --jobs and \
            --retries apply to them); --idle-timeout applies to the streams' connections.
            """
    )
    @Argument(help: "The feeds (streams and polled feeds).", completion: .feedNames) var feeds: [String] = []
    @Option(help: ArgumentHelp("End after this long (90s, 30m, 2h).", valueName: "duration")) var maxTime: String?
    @Option(help: ArgumentHelp("End after this many entries.", valueName: "n")) var maxEntries: Int?
    @Option(help: ArgumentHelp("End when no event came for this long (90s, 30m, 2h).", valueName: "duration"))
    var untilIdle: String?
    @Option(
        help: ArgumentHelp(
            "Drop and remake a connection silent this long, heartbeats included.",
            valueName: "seconds"))
    var idleTimeout: Double = 90
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: StreamOutputOptions
    @OptionGroup var fetching: FetchingOptions
    @OptionGroup var exec: ExecOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output.output, fetching: fetching) }

    public func validate() throws {
        for (option, value) in [("--max-time", maxTime), ("--until-idle", untilIdle)] {
            if let value, Self.duration(value) == nil {
                throw ValidationError("\(option) takes a duration like 90s, 30m or 2h")
            }
        }
        if let maxEntries, maxEntries < 1 { throw ValidationError("--max-entries must be at least 1") }
        guard idleTimeout >= 1, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be between 1 and 86400 seconds")
        }
        try exec.validate(with: output.output)
    }

    /// A duration as `--max-time` takes it: `EveryDuration`'s spelling, without `never`.
    static func duration(_ text: String) -> Duration? {
        text == "never" ? nil : EveryDuration.parse(text)
    }

    public var limits: FollowLimits {
        FollowLimits(
            maxTime: maxTime.flatMap(Self.duration), maxEntries: maxEntries,
            untilIdle: untilIdle.flatMap(Self.duration),
            idleTimeout: .milliseconds(Int((idleTimeout * 1000).rounded(.up))))
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        // Ctrl-C and SIGTERM end the session (the connections close, what arrived is printed and
        // committed); they are its end, not an interruption (0, not 130).
        context.interruption.acceptAsNormalEnd()
        let stop = Subject<Void>()
        context.interruption.onTrigger { stop.send(.completed) }
        let printer = EntryPrinter(
            format: context.format, layout: .list, sink: context.stdout,
            interruption: nil, progress: nil, patience: context.readerPatience)
        var limits = self.limits
        limits.busyWait = context.wait
        let output = context.entryOutput(printer, exec: exec)
        // A session can last for months: each feed's failures, recoveries and warnings are said
        // as they happen, from the states of the run, and not again at its end.
        let health = FeedHealthLines(stderr: context.stderr, now: context.now)
        let state = try context.runReactor(
            .follow(feeds: feeds, limits: limits), output: output, progress: nil,
            stop: stop.observable, watch: { health.update($0) })
        try context.finishPrinting(printer, after: state)
        if let failure = state.failure, failure != .interrupted {
            context.report(failure)
            return failure.exitCode
        }
        // The state of the feeds at the end: a failure that recovered is gone from it, and
        // Ctrl-C and SIGTERM are the session's end, also when they stopped a delivery.
        return FeedFailure.mostSerious(state.failures.filter { $0 != .interrupted })?.exitCode ?? 0
    }
}
