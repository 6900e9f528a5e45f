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


@main
struct FeedCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedcli",
        abstract: "Read JSON post feeds one entry at a time, or poll them from cron.",
        version: FeedcliVersion.current,
        subcommands: [Next.self, List.self, Sync.self, Show.self, Read.self, Unread.self, Open.self, Export.self, Feeds.self, Status.self])

    static func main() {
        // Started again as its own jq worker, feedcli serves jq expressions and exits here.
        JQWorkerMain.serveIfAsked()
        SignalHandling.hold()
        FileDescriptorSink.claimStandardDescriptors()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let mistake = CommandSpelling.check(arguments, in: configuration) {
            try? FileDescriptorSink.standardError.write("feedcli: \(mistake)\n")
            Glibc.exit(64)
        }
        // A command that fetches has its store opened and curl set up on the other core while
        // its arguments are parsed (start-up is most of what a `next` costs).
        let launch = Self.launch
        SignalHandling.install()
        // What ArgumentParser's `main()` does, plus the wait for that set-up before any exit.
        do {
            if arguments.isEmpty {
                // Bare `feedcli`: a short usage, then the overview of the feeds (`status`).
                try finish(with: FeedCommands.status(feeds: [], preamble: briefUsage, context: context(PlainNextCommandLine())))
            } else if let line = PlainNextCommandLine(arguments) {
                // What `Next.run` does with these options, without ArgumentParser's reflection.
                try finish(with: FeedCommands.next(feed: line.feed, context: context(line)))
            } else {
                var command = try parseAsRoot(arguments)
                try command.run()
            }
            launch.finish()
            if SignalHandling.interrupted { exit(withError: ExitCode(130)) }
        } catch {
            launch.finish()
            exit(withError: SignalHandling.interrupted ? ExitCode(130) : error)
        }
    }

    /// What bare `feedcli` prints above the feeds' overview.
    static let briefUsage = """
        feedcli: read JSON feeds an entry at a time, or poll them from cron.
          feedcli next [FEED]          print the next unread entry and mark it read
          feedcli sync [FEED…]         fetch what is new (from cron: --jsonl --quiet)
          feedcli list --unread        what is waiting
          feedcli feeds add NAME URL   a new feed (its kind is found out)
          feedcli --help               every command (man feedcli for more)


        """

    /// The set-up started at launch (on first use, which `main` makes right after the spelling
    /// check), for the commands' contexts.
    static let launch = LaunchPreparation.start(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
}

struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "Print the oldest unread entry and mark it read (exit 1 when there is none).")
    @Argument(help: ArgumentHelp("The feed (with --all, the feeds). None: posts while it is the only feed, else as --all.",
                                 valueName: "feed"), completion: .feedNames)
    var feeds: [String] = []
    @Flag(help: "The oldest unread entry of all (or the named) feeds by publication; syncs those due when nothing is unread.")
    var all = false
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var fetching: FetchingOptions

    func validate() throws {
        if !all, feeds.count > 1 { throw ValidationError("name one feed, or use --all for several") }
    }

    func run() throws {
        let context = context(store: store, output: output, fetching: fetching)
        try finish(with: all ? FeedCommands.nextOfAll(feeds: feeds, context: context)
                       : FeedCommands.next(feed: feeds.first, context: context))
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print stored entries, oldest first; no network.")
    @Argument(help: "Only this feed.", completion: .feedNames) var feed: String?
    @Flag(name: .shortAndLong, help: "Only unread entries.") var unread = false
    @Option(name: [.customShort("n"), .long], help: "Only the newest N entries.") var limit: Int?
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        try finish(with: FeedCommands.list(feed: feed, unreadOnly: unread, limit: limit,
                                           context: context(store: store, output: output)))
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print stored entries, newest first, as one JSON Feed 1.1 or Atom 1.0 document; no network.")
    @Argument(help: "Only these feeds (all when none).", completion: .feedNames) var feeds: [String] = []
    @Option(help: ArgumentHelp("jsonfeed or atom.", valueName: "format")) var format: ExportFormat
    @Flag(name: .shortAndLong, help: "Only unread entries.") var unread = false
    @Option(name: [.customShort("n"), .long], help: "Only the newest N entries.") var limit: Int?
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        try finish(with: FeedCommands.export(feeds: feeds, format: format, unreadOnly: unread, limit: limit,
                                             context: context(store: store)))
    }
}

extension ExportFormat: ExpressibleByArgument {}

struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch new entries of the feeds (all when none is named), store them unread, print them.")
    @Argument(help: "The feeds.", completion: .feedNames) var feeds: [String] = []
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var fetching: FetchingOptions

    func run() throws {
        try finish(with: FeedCommands.sync(feeds: feeds, context: context(store: store, output: output, fetching: fetching)))
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print one stored entry.")
    @Argument(help: "The entry's id, or its handle (@42) as plain output shows it.") var id: String
    @Option(help: "The entry's feed.", completion: .feedNames) var feed: String?
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try finish(with: FeedCommands.show(id: id, feed: feed, context: context(store: store, output: output)))
    }
}

struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read", abstract: "Mark entries read (ids or handles), or with --all every entry of the feeds; no network.")
    @Argument(help: "Ids or handles (@42); with --all, feeds (all when none).") var references: [String] = []
    @Option(help: "The entries' feed.", completion: .feedNames) var feed: String?
    @Flag(help: "Every entry of the named feeds (all feeds when none).") var all = false
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if !all, references.isEmpty { throw ValidationError("name the entries to mark read, or use --all") }
        if all, feed != nil { throw ValidationError("with --all, name the feeds as arguments") }
    }

    func run() throws {
        let context = context(store: store)
        try finish(with: all ? FeedCommands.readAll(feeds: references, context: context)
                       : FeedCommands.setRead(true, references: references, feed: feed, context: context))
    }
}

struct Unread: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unread", abstract: "Mark entries unread, so next delivers them again in their order; no network.")
    @Argument(help: "Ids or handles (@42).") var references: [String]
    @Option(help: "The entries' feed.", completion: .feedNames) var feed: String?
    @OptionGroup var store: StoreOptions

    func run() throws {
        try finish(with: FeedCommands.setRead(false, references: references, feed: feed, context: context(store: store)))
    }
}

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open", abstract: "Open an entry's web address with $BROWSER, else xdg-open.")
    @Argument(help: "The entry's id, or its handle (@42).") var id: String
    @Option(help: "The entry's feed.", completion: .feedNames) var feed: String?
    @OptionGroup var store: StoreOptions

    func run() throws {
        try finish(with: FeedCommands.open(reference: id, feed: feed, context: context(store: store)))
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Each feed's state: counts, read cursor, last fetch, last error, validators, retry time.")
    @Argument(help: "Only this feed.", completion: .feedNames) var feed: String?
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try finish(with: FeedCommands.status(feeds: feed.map { [$0] } ?? [], context: context(store: store, output: output)))
    }
}

extension FeedKind: ExpressibleByArgument {}

struct Feeds: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feeds",
        abstract: "Register, list, change and remove feeds.",
        subcommands: [Add.self, ListFeeds.self, Set.self, Remove.self, RemoveShort.self, Import.self, ExportOPML.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Register a feed.")
        @Argument(help: "A name: letters, digits, '.', '-', '_'.") var name: String
        @Argument(help: "An http or https URL.") var url: String
        @Option(help: ArgumentHelp("indexed, graph, jsonfeed, linked, json, or a preset: reddit, bluesky, discourse, hn, lemmy, "
                                   + "stackexchange (found out from the URL when left out)."))
        var kind: FeedKind?
        @Option(help: ArgumentHelp("Environment variable holding the feed's bearer token.", valueName: "VAR"))
        var tokenEnv: String?
        @Flag(help: "Change an existing feed.") var replace = false
        @Option(help: ArgumentHelp("A plain sync skips the feed while its last fetch is younger (30m, 2h, 1d), or always (never).",
                                   valueName: "duration"))
        var every: String?
        @OptionGroup(title: "jq expressions (json feeds; --filter for any feed)") var jq: ExpressionOptions
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let every, EveryDuration.parse(every) == nil { throw ValidationError("--every takes a duration like 30m, 2h or 1d, or never") }
        }

        func run() throws {
            try finish(with: FeedCommands.addFeed(name: name, url: url, kind: kind, tokenEnv: tokenEnv, replace: replace,
                                                  every: every.flatMap(EveryDuration.parse), expressions: jq.expressions,
                                                  context: context(store: store)))
        }
    }

    struct ListFeeds: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the feeds and their state.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try finish(with: FeedCommands.status(feeds: [], hintsWhenBare: true, detailed: true, context: context(store: store, output: output)))
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Change a feed in place: how often a plain sync fetches it, its jq expressions.")
        @Argument(help: "The feed.", completion: .feedNames) var name: String
        @Option(help: ArgumentHelp("30m, 2h, 1d, or never; '' fetches it on every sync again.", valueName: "duration")) var every: String?
        @Option(help: ArgumentHelp("Environment variable holding the feed's bearer token ('' for none).", valueName: "VAR"))
        var tokenEnv: String?
        @OptionGroup(title: "jq expressions (json feeds; --filter for any feed; '' unsets one)") var jq: ExpressionOptions
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let every, !every.isEmpty, EveryDuration.parse(every) == nil {
                throw ValidationError("--every takes a duration like 30m, 2h or 1d, never, or '' to unset it")
            }
            if every == nil, tokenEnv == nil, jq.expressions == FeedExpressions() {
                throw ValidationError("give what to change: --every, --token-env, --filter or a json feed's expressions")
            }
        }

        func run() throws {
            let every: Duration?? = self.every.map { EveryDuration.parse($0) }
            let tokenEnv: String?? = self.tokenEnv.map { $0.isEmpty ? nil : $0 }
            try finish(with: FeedCommands.setFeed(name, every: every, expressions: jq.expressions, tokenEnv: tokenEnv,
                                                  context: context(store: store)))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a feed and its entries.")
        @Argument(help: "The feed.", completion: .feedNames) var name: String
        @OptionGroup var store: StoreOptions

        func run() throws {
            try finish(with: FeedCommands.removeFeed(named: name, context: context(store: store)))
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Add the feeds an OPML file lists (another reader's export; - for stdin).")
        @Argument(help: ArgumentHelp("The OPML file.", valueName: "file"), completion: .file(extensions: ["opml", "xml"]))
        var file: String
        @OptionGroup var store: StoreOptions

        func run() throws {
            try finish(with: FeedCommands.importOPML(path: file, context: context(store: store)))
        }
    }

    struct ExportOPML: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Print the feeds as an OPML file, for another reader or feeds import.")
        @Flag(help: "OPML 2.0 (the one format; required, so that later formats can be added).") var opml = false
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if !opml { throw ValidationError("give --opml") }
        }

        func run() throws {
            try finish(with: FeedCommands.exportOPML(context: context(store: store)))
        }
    }

    /// `feeds rm`: `remove` under its short name, as a command of its own rather than an alias,
    /// because ArgumentParser's completion scripts (bash, zsh, fish) know no aliases: `feeds rm
    /// <TAB>` offered subcommand names instead of feeds.
    struct RemoveShort: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "The same as remove.")
        @OptionGroup var remove: Remove

        func run() throws { try remove.run() }
    }
}

extension CompletionKind {
    /// Completes feed names from the store (the one `--state` names, else the default).
    static var feedNames: CompletionKind {
        .custom { arguments, index, _ in
            // The word being completed, as typed so far.
            let word = arguments.indices.contains(index) ? arguments[index] : ""
            return FeedCommands.feedNames(completing: word, arguments: arguments, environment: ProcessInfo.processInfo.environment)
        }
    }
}
