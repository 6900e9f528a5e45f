import FoundationEssentials
import Glibc
import ArgumentParser
import FeedBase
import FeedModel
import FeedReactive
import FeedHTTP
import FeedJQ
import FeedKinds
import FeedStore
import FeedReactor
import FeedRendering
import FeedTerminal
import FeedCore

import Logging

/// Option groups, as SwiftPM's `Options.swift` splits them: each command takes only the groups
/// it uses, so `list --help` shows no network options and `list --force` is a usage error.

/// Where the store is and how long to wait for another run.
struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The state store (default: $FEEDCLI_STATE, else $XDG_STATE_HOME/feedcli/feedcli.sqlite).",
                               valueName: "path"))
    var state: String?

    @Option(help: ArgumentHelp("Seconds to wait for another feedcli run on the same feed.", valueName: "seconds"))
    var wait = Double(CommandContext.defaultWait.components.seconds)

    func validate() throws {
        guard wait >= 0, wait <= 86_400 else { throw ValidationError("--wait must be between 0 and 86400 seconds") }
    }
}

/// `--json` or `--jsonl` (plain text when neither).
enum DataFormat: String, EnumerableFlag {
    case json
    case jsonl

    static func help(for value: DataFormat) -> ArgumentHelp? {
        switch value {
        case .json: "Print one JSON value."
        case .jsonl: "Print JSON Lines: one compact object per line."
        }
    }
}

/// How data is printed.
struct OutputOptions: ParsableArguments {
    @Flag(exclusivity: .exclusive) var format: DataFormat?

    var outputFormat: OutputFormat {
        switch format {
        case .json: .json
        case .jsonl: .jsonl
        case nil: .plain
        }
    }
}

/// How feeds are fetched.
struct FetchingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "No progress line on stderr.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Log each request (method, URL, status, time) to stderr; -vv adds headers and sizes.")
    var verbose: Int

    @Option(help: ArgumentHelp("Seconds allowed for a whole request.", valueName: "seconds"))
    var timeout = Double(FetchOptions().timeout.components.seconds)

    @Option(help: "Retries of a request that failed for a reason that may pass.")
    var retries = FetchOptions().retries

    @Option(help: ArgumentHelp("Largest response accepted, in bytes.", valueName: "bytes"))
    var maxSize = FetchOptions().maxBodySize

    @Option(help: ArgumentHelp("Most pages (requests, for indexed feeds) per walk (default 10; indexed 100).",
                               valueName: "n"))
    var maxPages: Int?

    @Flag(help: "Fetch even when the server asked to wait (Retry-After).")
    var force = false

    @Option(help: ArgumentHelp("Feeds synced at once (requests to one host stay at most 4 at once).", valueName: "n"))
    var jobs = FetchOptions().jobs

    @Option(help: ArgumentHelp("Most memory a feed's jq expressions may use (512M, 1G).", valueName: "size"))
    var jqMemory = MemorySize.format(FetchOptions().jqMemory)

    func validate() throws {
        guard timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout must be between 0 and 86400 seconds") }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be between 0 and 10") }
        guard maxSize > 0 else { throw ValidationError("--max-size must be positive") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64") }
        guard let bytes = MemorySize.parse(jqMemory), bytes >= 64 << 20 else {
            throw ValidationError("--jq-memory takes a size of at least 64M, such as 512M or 1G (got '\(jqMemory)')")
        }
    }
}

/// The command context the options describe, on the real process's sinks and clock.
func context(store: StoreOptions, output: OutputOptions? = nil, fetching: FetchingOptions? = nil) -> CommandContext {
    var fetch: FetchOptions?
    if let fetching {
        var options = FetchOptions()
        // Rounded up: `--timeout 0.0001` is 1 ms, never 0 (which curl reads as "no limit").
        options.timeout = .milliseconds(max(1, Int((fetching.timeout * 1000).rounded(.up))))
        options.retries = fetching.retries
        options.maxBodySize = fetching.maxSize
        options.maxPages = fetching.maxPages
        options.force = fetching.force
        options.jobs = fetching.jobs
        options.jqMemory = MemorySize.parse(fetching.jqMemory) ?? options.jqMemory
        fetch = options
    }
    return context(statePath: store.state, wait: .milliseconds(Int((store.wait * 1000).rounded(.up))),
                   format: output?.outputFormat ?? .plain, fetch: fetch,
                   quiet: fetching?.quiet ?? false, verbose: fetching?.verbose ?? 0)
}

/// The context of `next [FEED] [--state PATH]`: every option at its default.
func context(_ line: PlainNextCommandLine) -> CommandContext {
    context(statePath: line.statePath, wait: CommandContext.defaultWait, format: .plain, fetch: FetchOptions(),
            quiet: false, verbose: 0)
}

/// The context on the real process's sinks and clock; `fetch` nil for commands that do not fetch
/// (they draw no progress line; `quiet` is false and `verbose` 0 for them). `verbose` counts `-v`:
/// 1 logs a line per request, 2 adds the headers and sizes of each.
private func context(
    statePath: String?, wait: Duration, format: OutputFormat, fetch: FetchOptions?, quiet: Bool, verbose: Int
) -> CommandContext {
    let environment = ProcessInfo.processInfo.environment
    // Into a log file (cron's `2>> feeds.err`), each diagnostic line says when it was written.
    let standardError = FileDescriptorSink.standardError
    let stderr: any OutputSink = standardError.isRegularFile ? TimestampedLines(sink: standardError, now: { Date() }) : standardError
    var logger = Logger(label: "feedcli", factory: { _ in SwiftLogNoOpLogHandler() })
    if verbose > 0 {
        logger = Logger(label: "feedcli") { _ in DiagnosticLogHandler(sink: stderr) }
        logger.logLevel = verbose > 1 ? .debug : .info
    }
    let showsProgress = fetch != nil && !quiet && verbose == 0
    return CommandContext(
        statePath: statePath ?? CommandContext.defaultStatePath(environment: environment),
        wait: wait, fetch: fetch ?? FetchOptions(), format: format,
        stdout: FileDescriptorSink.standardOutput, stderr: stderr,
        showsProgress: showsProgress && stderr.isTerminal && environment["TERM"] != "dumb",
        environment: environment, logger: logger, interruption: SignalHandling.interruption, launch: FeedCLI.launch)
}

/// Ends the process with a command's exit status (every command has written its output by then).
func finish(with status: Int32) throws {
    if status != 0 { throw ExitCode(status) }
}

/// A `json` feed's jq expressions and any feed's filter (`feeds add`, `feeds set`); the
/// contract's "Any JSON API".
struct ExpressionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("jq: the items of one response, each an object (default .[]).", valueName: "expr"))
    var items: String?
    @Option(help: ArgumentHelp("jq, on an item: its id, a string or number (default .id).", valueName: "expr"))
    var id: String?
    @Option(help: ArgumentHelp("jq, on an item: its title.", valueName: "expr")) var title: String?
    @Option(help: ArgumentHelp("jq, on an item: its text.", valueName: "expr")) var text: String?
    @Option(name: .customLong("url"), help: ArgumentHelp("jq, on an item: its web address (relative ones resolved).", valueName: "expr"))
    var urlExpression: String?
    @Option(help: ArgumentHelp("jq, on an item: its author.", valueName: "expr")) var author: String?
    @Option(help: ArgumentHelp("jq, on an item: when it was published (RFC 3339, RFC 2822, Unix seconds or ms).",
                               valueName: "expr"))
    var published: String?
    @Option(help: ArgumentHelp("jq, on the response: the next page's URL.", valueName: "expr")) var nextUrl: String?
    @Option(help: ArgumentHelp("jq, on the response: the next page's cursor (with --cursor-param).", valueName: "expr"))
    var cursor: String?
    @Option(help: ArgumentHelp("The query parameter the cursor is sent as.", valueName: "name")) var cursorParam: String?
    @Option(help: ArgumentHelp("Pages by number: the query parameter, until a page with no items.", valueName: "name"))
    var pageParam: String?
    @Option(help: ArgumentHelp("The first page's number (default 1).", valueName: "n")) var firstPage: Int?
    @Option(help: ArgumentHelp("jq, on an item's source: items for which it gives false or null are skipped.",
                               valueName: "expr"))
    var filter: String?

    var expressions: FeedExpressions {
        FeedExpressions(items: items, id: id, title: title, text: text, url: urlExpression, author: author,
                        published: published, nextURL: nextUrl, cursor: cursor, cursorParam: cursorParam,
                        pageParam: pageParam, firstPage: firstPage, filter: filter)
    }
}
