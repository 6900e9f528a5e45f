import ArgumentParser
import FeedModel
import FeedStore
import FeedStoreContract
import FeedTerminal

/// `feedcli open ID [--feed FEED]`: the entry's `url` through `$BROWSER`, else `xdg-open`. 66
/// when the entry has no usable http(s) address, 78 when nothing could open it.
public struct Open: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "open", abstract: "Open an entry's web address with $BROWSER, else xdg-open.")
    @OptionGroup var entry: EntryArguments
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func run(_ context: CommandContext) throws -> Int32 {
        let entries = try context.storedEntries(entry.id, feed: entry.feed)
        try StoreRules.refuseAmbiguous(entry.id, entries)
        let found = entries[0]
        guard let url = found.url, !url.isEmpty else {
            throw FeedFailure.notFound("entry \(found.handle) of \(found.feed) has no web address to open")
        }
        // A feed's link is the server's word: only a usable http(s) URL goes to a browser (never
        // `javascript:`, `file:`, or `--help` taken as an option).
        if let why = FeedRegistration.whyUnusableLink(url) {
            throw FeedFailure.notFound(
                "will not open \(Excerpt.of(Redaction.maskingSecrets(in: url), limit: 80)), the link of entry "
                    + "\(found.handle) of \(found.feed): it \(why)")
        }
        let (program, status) = Launcher.open(url, environment: context.environment)
        guard let status else {
            throw FeedFailure.configuration("nothing can open \(url): \(program) was not found (set $BROWSER)")
        }
        guard status == 0 else {
            throw FeedFailure.configuration("\(program) could not open \(url) (it exited \(status))")
        }
        return 0
    }
}
