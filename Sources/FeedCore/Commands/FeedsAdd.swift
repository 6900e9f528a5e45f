import ArgumentParser
import FeedModel
import FeedTerminal
import FoundationEssentials

/// `feedcli feeds add NAME URL [--kind KIND] [--replace] [--token-env VAR] [--every D] [jq
/// expressions]`: without a kind, the URL is asked what it is (one request, and `URL/1` when that
/// does not tell), unless a `json` mapping is given; with one, no request is made. Expressions
/// are compiled first: one jq cannot compile is a usage error and nothing is registered.
public struct FeedsAdd: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Register a feed.")
    @Argument(help: "A name: letters and digits of any script, '.', '-', '_'.") var name: String
    @Argument(help: "An http or https URL (ws or wss for jetstream and nostr).") var url: String
    @Option(
        help: ArgumentHelp(
            "indexed, graph, jsonfeed, linked, json, a preset (reddit, bluesky, discourse, hn, lemmy, "
                + "stackexchange), a stream (sse, ndjson, mastodon, wikimedia; jetstream, nostr over WebSocket); "
                + "found out from the URL when left out."))
    var kind: FeedKind?
    @Option(help: ArgumentHelp("Environment variable holding the feed's bearer token.", valueName: "VAR"))
    var tokenEnv: String?
    @Flag(help: "Change an existing feed.") var replace = false
    @Flag(help: "Take what the feed holds now as read: only later entries are new (a stream starts live).")
    var fromNow = false
    @Option(
        help: ArgumentHelp(
            "A plain sync skips the feed while its last fetch is younger (30m, 2h, 1d), or always (never).",
            valueName: "duration"))
    var every: String?
    @OptionGroup(title: "Retention") var retention: RetentionOptions
    @OptionGroup(title: "jq expressions (json feeds; --filter for any feed)") var jq: ExpressionOptions
    @OptionGroup(title: "WebSocket streams") var webSocket: WebSocketOptions
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func validate() throws {
        if let every, EveryDuration.parse(every) == nil {
            throw ValidationError("--every takes a duration like 30m, 2h or 1d, or never")
        }
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        let (url, expressions) = try FeedAdmission.applying(
            webSocket, authors: jq.authors, kind: kind, url: url,
            expressions: jq.expressions)
        let feed = try FeedAdmission.validated(
            name: name, url: url, kind: kind, tokenEnv: tokenEnv,
            expressions: expressions, context: context)
        let store = try context.openStore()
        if !replace, try store.hasFeed(named: name) {
            throw FeedFailure.usage("feed \(name) exists; use --replace to change it")
        }
        let (chosen, found, title) = try FeedAdmission.detected(feed, kindGiven: kind != nil, context: context)
        var settings = retention.settings
        settings.every = every.flatMap(EveryDuration.parse)
        settings.title = FeedSettings.sourceTitle(title)
        if replace {
            // Replacing a feed waits for a run on it, as a sync does: that run's cursor and
            // validators belong to the old URL and must not land on the new one.
            try store.withFeedLock(name) { () throws(FeedFailure) in
                try store.addFeed(chosen, settings: settings, replace: true)
            }
        } else {
            try store.addFeed(chosen, settings: settings, replace: false)
        }
        // What detection found, for the person who asked (a diagnostic: stdout stays empty).
        if let found {
            try? context.stderr.write(
                "feedcli: \(replace ? "replaced" : "added") \(name): \(TerminalText.safe(found))\n")
        }
        for warning in try Self.warnings(adding: chosen, to: store.feeds()) { context.warn(warning, feed: name) }
        guard fromNow else { return 0 }
        let note = { (text: String) in _ = try? context.stderr.write("feedcli: \(TerminalText.safe(text))\n") }
        for (feed, failure) in try context.startFromNow([name], removesFailed: !replace, said: note) {
            context.report(failure, feed: feed)
            note(
                replace
                    ? "\(feed) was changed; its entries were not taken as read" : "\(feed) was not added (--from-now)")
            return failure.exitCode
        }
        return 0
    }

    /// What the person who added `feed` should know: the same URL with the same kind and
    /// expressions is another feed already (both fetch it, each delivers its entries), and a plain
    /// `sse` feed on Mastodon's streaming API stores every event, notifications included.
    static func warnings(adding feed: FeedRegistration, to feeds: [FeedRecord]) -> [String] {
        var warnings: [String] = []
        if let same = feeds.first(where: {
            $0.name != feed.name && $0.registration.url == feed.url && $0.registration.kind == feed.kind
                && $0.registration.expressions == feed.expressions
        }) {
            warnings.append(
                "\(Redaction.maskingSecrets(in: feed.url)) is feed \(same.name) already: both fetch it and deliver its "
                    + "entries; feedcli feeds rm \(feed.name) undoes this, feeds add \(same.name) URL --replace changes that one"
            )
        }
        if feed.kind == .sse, URLComponents(string: feed.url)?.path.hasPrefix("/api/v1/streaming") == true {
            warnings.append(
                "this is Mastodon's streaming API: a plain sse feed stores every event, notifications and deletes "
                    + "included, as untitled entries; --kind mastodon (feeds add \(feed.name) URL --kind mastodon "
                    + "--replace) reads its statuses")
        }
        return warnings
    }
}

extension FeedKind: ExpressibleByArgument {}
