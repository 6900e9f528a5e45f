import ArgumentParser
import FeedCore
import Foundation
import Logging

/// Options every command takes, after the subcommand and in any order.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The state store (default: $FEEDCLI_STATE, else $XDG_STATE_HOME/feedcli/feedcli.sqlite).",
                               valueName: "path"))
    var state: String?

    @Flag(help: "Print one JSON value.")
    var json = false

    @Flag(help: "Print JSON Lines: one compact object per line.")
    var jsonl = false

    @Flag(help: "No progress line on stderr.")
    var quiet = false

    @Flag(help: "Log each request (method, URL, status, time) to stderr.")
    var verbose = false

    @Option(help: ArgumentHelp("Seconds allowed for a whole request.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(help: "Retries of a request that failed for a reason that may pass.")
    var retries: Int = 2

    @Option(help: ArgumentHelp("Seconds to wait for another feedcli run on the same feed.", valueName: "seconds"))
    var wait: Double = 30

    @Option(help: ArgumentHelp("Largest response accepted, in bytes.", valueName: "bytes"))
    var maxSize: Int = 16 * 1024 * 1024

    @Option(help: ArgumentHelp("Most pages (requests, for indexed feeds) per walk (default 10; indexed 100).",
                               valueName: "n"))
    var maxPages: Int?

    @Flag(help: "Fetch even when the server asked to wait (Retry-After).")
    var force = false

    @Option(help: ArgumentHelp("Feeds synced at once (requests to one host stay at most 4 at once).", valueName: "n"))
    var jobs: Int = 8

    func validate() throws {
        if json && jsonl { throw ValidationError("--json and --jsonl exclude each other") }
        guard timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout must be between 0 and 86400 seconds") }
        guard wait >= 0, wait <= 86_400 else { throw ValidationError("--wait must be between 0 and 86400 seconds") }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be between 0 and 10") }
        guard maxSize > 0 else { throw ValidationError("--max-size must be positive") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64") }
    }

    /// The command context these options describe, on the real process's sinks and clock.
    func context() -> CommandContext {
        let environment = ProcessInfo.processInfo.environment
        var fetch = FetchOptions()
        fetch.timeout = .milliseconds(Int(timeout * 1000))
        fetch.retries = retries
        fetch.maxBodySize = maxSize
        fetch.maxPages = maxPages
        fetch.force = force
        fetch.jobs = jobs
        let stderr = FileDescriptorSink.standardError
        let verbose = self.verbose
        var logger = Logger(label: "feedcli") { label -> any LogHandler in
            verbose ? StreamLogHandler.standardError(label: label) : SwiftLogNoOpLogHandler()
        }
        logger.logLevel = verbose ? Logger.Level.info : Logger.Level.critical
        return CommandContext(
            statePath: state ?? CommandContext.defaultStatePath(environment: environment),
            wait: .milliseconds(Int(wait * 1000)), fetch: fetch,
            format: json ? .json : jsonl ? .jsonl : .plain,
            stdout: FileDescriptorSink.standardOutput, stderr: stderr,
            showsProgress: !quiet && !verbose && stderr.isTerminal, environment: environment,
            logger: logger, interruption: SignalHandling.interruption)
    }
}

/// Ends the process with a command's exit status (every command has written its output by then).
func finish(with status: Int32) throws {
    if status != 0 { throw ExitCode(status) }
}
