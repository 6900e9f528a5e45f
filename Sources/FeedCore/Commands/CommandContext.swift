import FeedHTTP
import FeedKinds
import FeedModel
import FeedPostgres
import FeedReactive
import FeedReactor
import FeedRendering
import FeedStore
import FeedStoreContract
import FeedTerminal
import FoundationEssentials
import Glibc
import Logging

/// What a command needs from the world, injected so that commands run hermetically in tests:
/// paths, options, output sinks, clock, environment and how to make the HTTP client.
public struct CommandContext: Sendable {
    public var statePath: String
    /// How long to wait for another run on the same feed (or store) before exiting 75.
    public var wait: Duration
    public var fetch: FetchOptions
    public var format: OutputFormat
    public var stdout: any OutputSink
    public var stderr: any OutputSink
    /// Draw the progress line on stderr (a terminal, and not `--quiet`).
    public var showsProgress: Bool
    public var environment: [String: String]
    public var now: @Sendable () -> Date
    public var scheduler: any Scheduler
    public var logger: Logger
    public var interruption: Interruption
    /// The store and output a reactor run goes through, as the command made them, given back
    /// as the run uses them: as they are in the program; tests wrap them to watch (or interrupt)
    /// each step of a run.
    public var reactorPorts:
        @Sendable (any FeedStoring, any EntryOutput) -> (store: any FeedStoring, output: any EntryOutput)
    public var makeHTTPClient: @Sendable () throws(HTTPError) -> HTTPClient
    /// A connection to the store at `statePath` (a `postgresql://` URL) begun when the context
    /// was made (`Invocation`), which opening that store takes; nil for a file, and in tests.
    public var connectionAhead: PostgresConnectionAhead?

    /// How long a run waits for another by default (`--wait`).
    public static let defaultWait: Duration = .seconds(30)

    public init(
        statePath: String, wait: Duration = CommandContext.defaultWait, fetch: FetchOptions = FetchOptions(),
        format: OutputFormat = .plain, stdout: any OutputSink, stderr: any OutputSink,
        showsProgress: Bool = false, environment: [String: String] = [:],
        now: @escaping @Sendable () -> Date = { Date() }, scheduler: any Scheduler = DispatchScheduler(),
        logger: Logger = Logger(label: "feedcli", factory: { _ in SwiftLogNoOpLogHandler() }),
        interruption: Interruption = Interruption(),
        reactorPorts:
            @escaping @Sendable (any FeedStoring, any EntryOutput) -> (
                store: any FeedStoring, output: any EntryOutput
            ) = { ($0, $1) },
        makeHTTPClient: @escaping @Sendable () throws(HTTPError) -> HTTPClient = { () throws(HTTPError) in
            try HTTPClient()
        },
        connectionAhead: PostgresConnectionAhead? = nil
    ) {
        self.statePath = statePath
        self.wait = wait
        self.fetch = fetch
        self.format = format
        self.stdout = stdout
        self.stderr = stderr
        self.showsProgress = showsProgress
        self.environment = environment
        self.now = now
        self.scheduler = scheduler
        self.logger = logger
        self.interruption = interruption
        self.reactorPorts = reactorPorts
        self.makeHTTPClient = makeHTTPClient
        self.connectionAhead = connectionAhead
    }

    /// The store at `statePath`.
    /// A command that only reads never creates the store: where there is none, it reads an
    /// empty one and says so on stderr (a diagnostic; one that cannot be written changes nothing).
    /// A `postgresql://` URL opens the store in that database (`PostgresStore`), where a command
    /// that only reads likewise never creates the schema.
    package func openStore(access: FeedStore.Access = .readWrite) throws(FeedFailure) -> any StateStore {
        if let store = try openStore(at: statePath, access: access) { return store }
        return try standIn(for: statePath)
    }

    /// The store at `location` (a path or a `postgresql://` URL), or nil when a command that only
    /// reads finds none there (it is never created for reading).
    package func openStore(at location: String, access: FeedStore.Access) throws(FeedFailure) -> (any StateStore)? {
        if StoreRules.isDatabaseURL(location) {
            return try PostgresStore.open(url: location, wait: wait, access: access, ahead: connectionAhead)
        }
        if access == .readOnly, !FeedStore.exists(at: location) { return nil }
        let stderr = self.stderr
        return try FeedStore.open(at: location, wait: wait, access: access) { notice in
            try? stderr.write("feedcli: " + TerminalText.safe(notice) + "\n")
        }
    }

    /// What a reading command reads where there is no store yet: an empty one, said on stderr.
    private func standIn(for location: String) throws(FeedFailure) -> any StateStore {
        let shown = TerminalText.safe(Redaction.maskingSecrets(in: location))
        notice("no store at \(shown) yet (next, sync and feeds add create it)")
        return try FeedStore.empty(standingFor: Redaction.maskingSecrets(in: location))
    }

    /// The store path when `--state` is not given: `$FEEDCLI_STATE`, else
    /// `$XDG_STATE_HOME/feedcli/feedcli.sqlite`, else `~/.local/state/feedcli/feedcli.sqlite`.
    public static func defaultStatePath(environment: [String: String]) -> String {
        if let path = environment["FEEDCLI_STATE"], !path.isEmpty { return path }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/feedcli/feedcli.sqlite"
        }
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/state/feedcli/feedcli.sqlite"
    }

    /// One warning line on stderr: `feedcli: FEED: warning: …`.
    package func warn(_ message: String, feed: String) {
        try? stderr.write("feedcli: \(feed): warning: " + TerminalText.safe(message) + "\n")
    }

    /// A reader of stdout that takes nothing for `--wait` is told about once, on stderr.
    package var readerPatience: EntryPrinter.ReaderPatience {
        let stderr = self.stderr
        return EntryPrinter.ReaderPatience(after: wait) { message in
            try? stderr.write("feedcli: \(TerminalText.safe(message))\n")
        }
    }

    /// Says something on stderr that is neither a failure nor a warning (`<5>` in the journal).
    package func notice(_ message: String) {
        let line = Array(("feedcli: " + TerminalText.safe(message) + "\n").utf8)
        if let journal = stderr as? JournalLines {
            try? journal.write(line, priority: 5)
        } else {
            try? stderr.write(line)
        }
    }

    /// Reports a failure on stderr: `feedcli: message`. stderr is the last place to say
    /// anything: when it cannot be written either, the exit status still tells.
    package func report(_ failure: FeedFailure, feed: String? = nil) {
        try? stderr.write("feedcli: " + (feed.map { "\($0): " } ?? "") + TerminalText.safe(failure.description) + "\n")
    }
}
