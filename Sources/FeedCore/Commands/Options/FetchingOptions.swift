import ArgumentParser
import FeedKinds
import FeedModel
import FoundationEssentials

/// How feeds are fetched.
public struct FetchingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "No progress line on stderr.")
    public var quiet = false

    @Flag(
        name: .shortAndLong, help: "Log each request (method, URL, status, time) to stderr; -vv adds headers and sizes."
    )
    public var verbose: Int

    @Option(
        help: ArgumentHelp(
            "Seconds allowed for a whole request, and for a feed's jq expressions over a run.", valueName: "seconds"))
    public var timeout = Double(FetchOptions().timeout.components.seconds)

    @Option(help: "Retries of a request that failed for a reason that may pass.")
    public var retries = FetchOptions().retries

    @Option(
        help: ArgumentHelp(
            "Largest response accepted, and most a page's jq expressions may build, in bytes.", valueName: "bytes"))
    public var maxSize = FetchOptions().maxBodySize

    @Option(
        help: ArgumentHelp(
            "Most pages (requests, for indexed feeds) per walk (default 10; indexed 100).",
            valueName: "n"))
    public var maxPages: Int?

    @Flag(help: "Fetch even when the server asked to wait (Retry-After).")
    public var force = false

    @Option(help: ArgumentHelp("Feeds synced at once (requests to one host stay at most 4 at once).", valueName: "n"))
    public var jobs = FetchOptions().jobs

    @Option(help: ArgumentHelp("Most memory a feed's jq expressions may use (512M, 1G).", valueName: "size"))
    public var jqMemory = MemorySize.format(FetchOptions().jqMemory)

    public init() {}

    public func validate() throws {
        guard timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout must be more than 0 and at most 86400 seconds")
        }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be between 0 and 10") }
        guard maxSize > 0 else { throw ValidationError("--max-size must be positive") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64") }
        guard let bytes = MemorySize.parse(jqMemory), bytes >= 64 << 20 else {
            throw ValidationError("--jq-memory takes a size of at least 64M, such as 512M or 1G (got '\(jqMemory)')")
        }
    }

    /// The fetch options these give.
    var fetchOptions: FetchOptions {
        var options = FetchOptions()
        // Rounded up: `--timeout 0.0001` is 1 ms, never 0 (which curl reads as "no limit").
        options.timeout = .milliseconds(max(1, Int((timeout * 1000).rounded(.up))))
        options.retries = retries
        options.maxBodySize = maxSize
        options.maxPages = maxPages
        options.force = force
        options.jobs = jobs
        options.jqMemory = MemorySize.parse(jqMemory) ?? options.jqMemory
        return options
    }
}
