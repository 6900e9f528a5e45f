import ArgumentParser
import FeedRendering
import FoundationEssentials

/// `feedcli feeds export [--opml | --newsboat]`: every feed as one OPML 2.0 document on stdout,
/// or as lines of newsboat's `urls` file; no network, no change to the store. A reader that
/// leaves is a quiet end, as for `list`. `--opml` may be left out (the default).
///
/// `--newsboat`: Debian 12's newsboat (2.21) reads no JSON Feed, so an OPML of feed URLs gives
/// it nothing it can read; each line instead has newsboat run `feedcli export NAME --format
/// atom` (its `exec:` URLs), which reads the store, never the network.
public struct FeedsExport: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print the feeds as an OPML file, or as newsboat `urls` lines, for another reader or feeds import.")
    @Flag(help: "OPML 2.0 (the default).") var opml = false
    @Flag(help: "Lines for newsboat's urls file: each feed read from the store as Atom through `exec:feedcli export`.")
    var newsboat = false
    @OptionGroup var store: StoreOptions

    public func validate() throws {
        if opml && newsboat { throw ValidationError("--opml and --newsboat are two formats: give one") }
    }

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func run(_ context: CommandContext) throws -> Int32 {
        let records = try context.openStore(access: .readOnly).feeds()
        if newsboat {
            let state = URL(fileURLWithPath: context.statePath).path
            return context.writeReading(Array(NewsboatURLs.lines(records.map(\.name), state: state).utf8))
        }
        return context.writeReading(Array(OPMLWriter.document(records, created: context.now()).utf8))
    }
}
