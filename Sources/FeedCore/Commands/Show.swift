import ArgumentParser
import FeedRendering

/// `feedcli show ID [--feed FEED]`: the stored entry (every feed's entry with that id when no
/// feed is named).
public struct Show: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print one stored entry.")
    @OptionGroup var entry: EntryArguments
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store, output: output) }

    public func run(_ context: CommandContext) throws -> Int32 {
        context.paging { (context: CommandContext) throws -> Int32 in
            let entries = try context.storedEntries(entry.id, feed: entry.feed)
            // `--json` gives one object for one entry, an array for several.
            let layout: EntryRenderer.Layout = context.format == .plain || (context.format == .json && entries.count == 1)
                ? .detailed : .list
            var bytes: [UInt8] = []
            for (number, entry) in entries.enumerated() {
                EntryRenderer.element(entry, number: number, format: context.format, layout: layout,
                                      width: context.stdout.columns, into: &bytes)
            }
            bytes += EntryRenderer.end(count: entries.count, format: context.format, layout: layout)
            return context.writeReading(bytes)
        }
    }
}
