import ArgumentParser
import FeedModel

/// `feedcli`: the root of the command tree. The executable parses a command line with it and
/// runs the command it names (`FeedcliCommand.execute`); bare `feedcli` prints `briefUsage`
/// above the feeds' overview.
public struct Feedcli: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "feedcli",
        abstract: "Read JSON post feeds one entry at a time, or poll them from cron.",
        version: FeedcliVersion.current,
        subcommands: [
            Next.self, List.self, Sync.self, Follow.self, Show.self, Read.self, Unread.self, Open.self, Export.self,
            Search.self, Feeds.self, Store.self,
            Status.self,
        ])

    public init() {}

    /// What bare `feedcli` prints above the feeds' overview.
    public static let briefUsage = """
        feedcli: read JSON feeds an entry at a time, or poll them from cron.
          feedcli next [FEED]          print the next unread entry and mark it read
          feedcli sync [FEED…]         fetch what is new (from cron: --jsonl --quiet)
          feedcli follow [FEED…]       print live streams' entries as they arrive
          feedcli list --unread        what is waiting
          feedcli feeds add NAME URL   a new feed (its kind is found out)
          feedcli --help               every command (man feedcli for more)


        """
}
