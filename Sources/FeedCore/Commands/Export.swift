import ArgumentParser
import FeedModel
import FeedRendering

/// `feedcli export [FEED…] --format jsonfeed|atom [--limit N] [--unread]`: the stored entries,
/// newest first, as one feed document, streamed; no network, no change to the store. Output
/// failures as for `list`: a reader that leaves is a quiet end.
public struct Export: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print stored entries, newest first, as one JSON Feed 1.1 or Atom 1.0 document; no network.")
    @Argument(help: "Only these feeds (all when none).", completion: .feedNames) var feeds: [String] = []
    @Option(help: ArgumentHelp("jsonfeed or atom.", valueName: "format")) var format: ExportFormat
    @Flag(name: .shortAndLong, help: "Only unread entries.") var unread = false
    // Unconditional: `--limit -3` is a value to refuse by name, not a missing one.
    @Option(name: [.customShort("n"), .long], parsing: .unconditional, help: "Only the newest N entries.") var limit: Int?
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        let store = try context.openStore(access: .readOnly)
        let records = feeds.isEmpty ? try store.feeds() : try feeds.map { name throws(FeedFailure) in try store.feed(named: name) }
        var seen = Set<String>()
        let names = records.map(\.name).filter { seen.insert($0).inserted }
        let updated = records.compactMap { $0.lastSuccessAt ?? $0.lastFetchAt }.max() ?? context.now()
        let writer = FeedExportWriter(format: format, feeds: names, updated: Timestamp.format(updated))
        var first = true
        return try context.stream(begin: writer.header(), end: writer.footer) { each in
            try store.forEachEntry(feeds: feeds, unreadOnly: unread, limit: limit, newestFirst: true) { entry in
                defer { first = false }
                let isFirst = first
                return each { $0 += writer.entry(entry, first: isFirst) }
            }
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
