import ArgumentParser
import FeedModel
import FeedRendering

/// `feedcli export [FEED…] --format jsonfeed|atom [--limit N] [--unread] [--self URL]`: the
/// stored entries, newest first by publication, as one feed document that validates, streamed;
/// no network, no change to the store. Output failures as for `list`: a reader that leaves is a
/// quiet end.
public struct Export: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print stored entries, newest first, as one JSON Feed 1.1 or Atom 1.0 document; no network.")
    @Argument(help: "Only these feeds (all when none).", completion: .feedNames) var feeds: [String] = []
    @Option(help: ArgumentHelp("jsonfeed or atom.", valueName: "format")) var format: ExportFormat
    @Flag(name: .shortAndLong, help: "Only unread entries.") var unread = false
    // Unconditional: `--limit -3` is a value to refuse by name, not a missing one.
    @Option(name: [.customShort("n"), .long], parsing: .unconditional, help: "Only the newest N entries.") var limit:
        Int?
    @Option(
        name: .customLong("self"),
        help: ArgumentHelp(
            "The document's own address, for readers (Atom rel=\"self\", JSON Feed feed_url).",
            valueName: "URL"))
    var selfURL: String?
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if let selfURL, let why = FeedRegistration.whyUnusableLink(selfURL) {
            throw ValidationError("--self \(selfURL): it \(why)")
        }
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        let store = try context.openStore(access: .readOnly)
        let records =
            feeds.isEmpty
            ? try store.feeds() : try feeds.map { name throws(FeedFailure) in try store.feed(named: name) }
        let updated = records.compactMap { $0.lastSuccessAt ?? $0.lastFetchAt }.max() ?? context.now()
        let writer = FeedExportWriter(
            format: format, feeds: records.map(\.registration), allFeeds: feeds.isEmpty,
            updated: Timestamp.format(updated), selfURL: selfURL,
            sourceTitles: Dictionary(
                records.compactMap { record in record.title.map { (record.name, $0) } },
                uniquingKeysWith: { first, _ in first }))
        var first = true
        return try context.stream(begin: writer.header(), end: writer.footer) { each in
            // Newest first by publication across the feeds, as readers list a feed.
            try store.forEachEntry(feeds: feeds, unreadOnly: unread, limit: limit, newestFirst: true, order: .published)
            { entry in
                defer { first = false }
                let isFirst = first
                return each { $0 += writer.entry(entry, first: isFirst) }
            }
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
