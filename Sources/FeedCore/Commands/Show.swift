import ArgumentParser
import FeedRendering
import FeedStore
import FeedStoreContract

/// `feedcli show ID [--feed FEED]`: the stored entry; an id several feeds hold needs `--feed`
/// (or the entry's handle).
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
            // One entry, always: an id several feeds hold is refused (64, naming them), as read
            // and open refuse it, so `--json` is always one object.
            let entries = try context.storedEntries(entry.id, feed: entry.feed)
            try StoreRules.refuseAmbiguous(entry.id, entries)
            var bytes: [UInt8] = []
            EntryRenderer.element(
                entries[0], number: 0, format: context.format, layout: .detailed,
                width: context.stdout.columns, into: &bytes)
            bytes += EntryRenderer.end(count: 1, format: context.format, layout: .detailed)
            return context.writeReading(bytes)
        }
    }
}
