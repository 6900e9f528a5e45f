import FeedKinds
import FeedPostgres
import FeedRendering
import FeedStoreContract
import FeedTerminal
import FoundationEssentials
import Logging

/// What the executable hands a command besides its options: the process's environment, its
/// standard output and error, and the interruption that Ctrl-C and SIGTERM trigger. A command's context is made of these and its options, once
/// (`context(_:)`).
public struct Invocation: Sendable {
    /// Where diagnostics go: stderr, as its reader needs them. Under systemd (`$JOURNAL_STREAM`
    /// names stderr) the journal stamps each line and wants its priority; into a log file, each
    /// line says when it was written. Every line feedcli writes on stderr goes through it, the
    /// parser's usage errors included.
    public var diagnostics: any OutputSink {
        if JournalLines.isJournal(2, environment: environment) { return JournalLines(sink: standardError) }
        if standardError.isRegularFile { return TimestampedLines(sink: standardError, now: { Date() }) }
        return standardError
    }

    public var environment: [String: String]
    public var standardOutput: FileDescriptorSink
    public var standardError: FileDescriptorSink
    public var interruption: Interruption
    /// The connection to the database store the command line names, begun by the executable
    /// before anything else (`beginConnection(toStoreAt:)`); the context of a command that opens
    /// that store takes it.
    public var connectionAhead: PostgresConnectionAhead?

    public init(
        environment: [String: String], standardOutput: FileDescriptorSink, standardError: FileDescriptorSink,
        interruption: Interruption, connectionAhead: PostgresConnectionAhead? = nil
    ) {
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.interruption = interruption
        self.connectionAhead = connectionAhead
    }

    /// Begins connecting to the store at `statePath` when it is a database (nil, or a file: nil),
    /// with the default wait: what the executable does first with a command line that names its
    /// store (the plainest `next`), before it reads its environment (`ProcessInfo.environment`'s
    /// first use: most of the 1.4–1.9 ms measured between `main` and a connection's begin).
    public static func beginConnection(toStoreAt statePath: String?) -> PostgresConnectionAhead? {
        guard let statePath, StoreRules.isDatabaseURL(statePath) else { return nil }
        return PostgresConnectionAhead.begin(url: statePath, timeout: CommandContext.defaultWait)
    }

    /// The context `options` describe, on the process's sinks and clock.
    public func context(_ options: CommandOptions) -> CommandContext {
        context(
            statePath: options.store.state, wait: options.store.waitDuration,
            format: options.output?.outputFormat ?? .plain, fetch: options.fetching?.fetchOptions,
            quiet: options.fetching?.quiet ?? false, verbose: options.fetching?.verbose ?? 0,
            connectsAhead: options.opensStateStore)
    }

    /// The context of a command line read without the parser (bare `feedcli`, the plainest
    /// `next`): every option at its default but the store's path.
    public func defaultContext(statePath: String?, fetches: Bool) -> CommandContext {
        context(
            statePath: statePath, wait: CommandContext.defaultWait, format: .plain,
            fetch: fetches ? FetchOptions() : nil, quiet: false, verbose: 0, connectsAhead: true)
    }

    /// The context on the process's sinks and clock; `fetch` nil for commands that do not fetch
    /// (they draw no progress line). Into a log file (cron's `2>> feeds.err`), each diagnostic
    /// line says when it was written; `verbose` 1 (`-v`) logs a line per request, 2 adds each
    /// request's headers and sizes; the progress line is drawn for a command that fetches, on a
    /// terminal, unless `--quiet` or `-v`. `connectsAhead`: the command opens the store at
    /// `statePath`, and a database's connection is begun at once (`PostgresConnectionAhead`).
    private func context(
        statePath: String?, wait: Duration, format: OutputFormat, fetch: FetchOptions?, quiet: Bool, verbose: Int,
        connectsAhead: Bool
    ) -> CommandContext {
        let location = statePath ?? CommandContext.defaultStatePath(environment: environment)
        // First: the connection's wait runs beside everything after it.
        let ahead: PostgresConnectionAhead?
        if !connectsAhead || !StoreRules.isDatabaseURL(location) {
            ahead = nil
        } else if let begun = connectionAhead, begun.url == location, wait == CommandContext.defaultWait {
            ahead = begun
        } else {
            ahead = PostgresConnectionAhead.begin(url: location, timeout: wait)
        }
        let stderr = diagnostics
        var logger = Logger(label: "feedcli", factory: { _ in SwiftLogNoOpLogHandler() })
        if verbose > 0 {
            logger = Logger(label: "feedcli") { _ in DiagnosticLogHandler(sink: stderr) }
            logger.logLevel = verbose > 1 ? .debug : .info
        }
        let showsProgress = fetch != nil && !quiet && verbose == 0
        return CommandContext(
            statePath: location,
            wait: wait, fetch: fetch ?? FetchOptions(), format: format, stdout: standardOutput, stderr: stderr,
            showsProgress: showsProgress && stderr.isTerminal && environment["TERM"] != "dumb",
            environment: environment, logger: logger, interruption: interruption, connectionAhead: ahead)
    }
}
