import ArgumentParser
import FeedModel
import FeedRendering
import FeedStoreContract
import FoundationEssentials

/// `feedcli search QUERY [FEED…]`: the stored entries that match, newest first (`--rank`: best
/// match first), each with an excerpt; from the store's index, no network, nothing marked read.
/// 1 when nothing matches.
public struct Search: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find stored entries by their words, newest first (exit 1 when none matches); no network.",
        discussion: """
            QUERY is what you would type into a search box: words (each must match), "a phrase", \
            -word (must not match), word OR word, word* (a prefix), and title:, author:, feed: for \
            one field. Case and accents are ignored; Chinese, Japanese and Thai match inside longer \
            runs of text.
            """)
    @Argument(help: ArgumentHelp("What to find.", valueName: "query")) var query: String
    @Argument(help: "Only these feeds (all when none).", completion: .feedNames) var feeds: [String] = []
    @Flag(help: "Best match first (the title's words count most), each with its rank.") var rank = false
    @Flag(name: .shortAndLong, help: "Only unread entries.") var unread = false
    @Option(
        name: [.customShort("n"), .long], parsing: .unconditional,
        help: "At most N matches (0: all).")
    var limit = 20
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only entries published (else fetched) this recently, like 12h or 30d.", valueName: "duration"))
    var since: String?
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output) }

    public func validate() throws {
        if query.allSatisfy(\.isWhitespace) { throw ValidationError("nothing to search for: give a word or a phrase") }
        if limit < 0 { throw ValidationError("--limit must not be negative") }
        if let since, RetentionDuration.seconds(since) == nil {
            throw ValidationError("--since takes a duration like 12h, 1d or 30d")
        }
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        let parsed = SearchQuery.parse(query)
        var found = 0
        let status = context.paging { (context: CommandContext) throws -> Int32 in
            let width = context.stdout.columns
            let marks: SearchExcerpt.Marks =
                context.stdout.isTerminal && context.environment["NO_COLOR"] == nil ? .bold : .brackets
            let store = try context.openStore(access: .readOnly)
            for feed in feeds { _ = try store.feed(named: feed) }
            var request = SearchRequest(
                query: parsed, feeds: feeds, unreadOnly: unread,
                since: since.flatMap { RetentionDuration.seconds($0) }.map {
                    context.now().addingTimeInterval(-Double($0))
                },
                limit: limit == 0 ? nil : limit, ranked: rank, notice: { [context] line in context.notice(line) })
            request.progress = Self.progressLine(on: context)
            return try context.stream(
                begin: [], end: { found == 0 ? [] : SearchRenderer.end(count: found, format: context.format) }
            ) { each in
                try store.search(request) { hit in
                    defer { found += 1 }
                    let number = found
                    return each {
                        SearchRenderer.element(
                            hit.entry, rank: hit.rank, query: parsed, number: number, format: context.format,
                            marks: marks, width: width, into: &$0)
                    }
                }
            }
        }
        return status == 0 && found == 0 ? 1 : status
    }

    /// How far a long indexing has come, on one line of a terminal's stderr redrawn in place
    /// and cleared at the end; nothing when stderr is not a terminal (a file, the journal).
    private static func progressLine(on context: CommandContext) -> @Sendable (Int64, Int64) -> Void {
        let stderr = context.stderr
        guard stderr.isTerminal, context.environment["TERM"] != "dumb" else { return { _, _ in } }
        return { indexed, total in
            // A courtesy: a stderr that cannot take it changes nothing.
            if indexed >= total {
                try? stderr.write("\r\u{1B}[K")
            } else {
                try? stderr.write("\r\u{1B}[Kfeedcli: indexing for search: \(indexed) of \(total) entries")
            }
        }
    }
}
