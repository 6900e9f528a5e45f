import ArgumentParser
import FeedCore

@main
struct FeedCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedcli",
        abstract: "Read JSON post feeds one entry at a time, or poll them from cron.",
        version: FeedcliVersion.current,
        subcommands: [Next.self, List.self, Sync.self, Show.self, Feeds.self, Status.self])

    static func main() {
        FileDescriptorSink.claimStandardDescriptors()
        let signals = SignalHandling.install()
        defer { signals.forEach { $0.cancel() } }
        main(nil)
    }
}

struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "Print the oldest unread entry and mark it read (exit 1 when there is none).")
    @Argument(help: "The feed.") var feed = "posts"
    @OptionGroup var options: GlobalOptions

    func run() throws {
        try finish(with: FeedCommands.next(feed: feed, context: options.context()))
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print stored entries, oldest first; no network.")
    @Argument(help: "Only this feed.") var feed: String?
    @Flag(help: "Only unread entries.") var unread = false
    @Option(help: "Only the newest N entries.") var limit: Int?
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        try finish(with: FeedCommands.list(feed: feed, unreadOnly: unread, limit: limit, context: options.context()))
    }
}

struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch new entries of the feeds (all when none is named), store them unread, print them.")
    @Argument(help: "The feeds.") var feeds: [String] = []
    @OptionGroup var options: GlobalOptions

    func run() throws {
        try finish(with: FeedCommands.sync(feeds: feeds, context: options.context()))
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print one stored entry.")
    @Argument(help: "The entry's id.") var id: String
    @Option(help: "The entry's feed.") var feed: String?
    @OptionGroup var options: GlobalOptions

    func run() throws {
        try finish(with: FeedCommands.show(id: id, feed: feed, context: options.context()))
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Each feed's state: counts, read cursor, last fetch, last error, validators, retry time.")
    @Argument(help: "Only this feed.") var feed: String?
    @OptionGroup var options: GlobalOptions

    func run() throws {
        try finish(with: FeedCommands.status(feeds: feed.map { [$0] } ?? [], context: options.context()))
    }
}

extension FeedKind: ExpressibleByArgument {}

struct Feeds: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feeds",
        abstract: "Register, list and remove feeds.", subcommands: [Add.self, ListFeeds.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Register a feed.")
        @Argument(help: "A name: letters, digits, '.', '-', '_'.") var name: String
        @Argument(help: "An http or https URL.") var url: String
        @Option(help: "indexed, graph, jsonfeed or linked.") var kind: FeedKind
        @Option(help: ArgumentHelp("Environment variable holding the feed's bearer token.", valueName: "VAR"))
        var tokenEnv: String?
        @Flag(help: "Change an existing feed.") var replace = false
        @OptionGroup var options: GlobalOptions

        func run() throws {
            let feed = FeedRegistration(name: name, url: url, kind: kind, tokenEnv: tokenEnv)
            try finish(with: FeedCommands.addFeed(feed, replace: replace, context: options.context()))
        }
    }

    struct ListFeeds: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the feeds and their state.")
        @OptionGroup var options: GlobalOptions

        func run() throws {
            try finish(with: FeedCommands.status(feeds: [], context: options.context()))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a feed and its entries.")
        @Argument(help: "The feed.") var name: String
        @OptionGroup var options: GlobalOptions

        func run() throws {
            try finish(with: FeedCommands.removeFeed(named: name, context: options.context()))
        }
    }
}
