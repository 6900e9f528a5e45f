import ArgumentParser
import FeedRendering

/// `feedcli feeds export [--opml]`: every feed as one OPML 2.0 document on stdout; no network, no
/// change to the store. A reader that leaves is a quiet end, as for `list`. OPML is the one
/// format, so `--opml` may be left out (the contract shows it optional; the help said
/// "required", which the parser's usage line contradicted).
public struct FeedsExport: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print the feeds as an OPML file, for another reader or feeds import.")
    @Flag(help: "OPML 2.0, the one format (the default).") var opml = false
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func run(_ context: CommandContext) throws -> Int32 {
        let records = try context.openStore(access: .readOnly).feeds()
        return context.writeReading(Array(OPMLWriter.document(records, created: context.now()).utf8))
    }
}
