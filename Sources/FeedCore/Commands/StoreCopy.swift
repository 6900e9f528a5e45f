import ArgumentParser
import FeedModel
import FeedStore
import FeedStoreContract

/// `feedcli store copy FROM TO`: a whole store (feeds, entries, read state, cursors, validators,
/// stream positions) from a SQLite file or PostgreSQL database into another, either way, in one
/// transaction of the target. The source is only read (one snapshot); a target that holds
/// anything of a user's is refused (64), so a copy never merges into or overwrites a store.
public struct StoreCopy: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a whole store (a SQLite file or a postgresql:// URL) into a new one.")
    @Argument(help: ArgumentHelp("The store to copy (a path or a postgresql:// URL); only read.", valueName: "from"))
    var from: String
    @Argument(help: ArgumentHelp("The new store (a path or a postgresql:// URL); it must be empty.", valueName: "to"))
    var to: String
    // Not `StoreOptions`: the two stores are arguments, so `--state` would name nothing here.
    @Option(help: ArgumentHelp("Seconds to wait for a store another run holds, or a server.", valueName: "seconds"))
    var wait = Double(CommandContext.defaultWait.components.seconds)

    public init() {}

    public var options: CommandOptions {
        // Every property of the group is set, as parsing would: none is read unset.
        var store = StoreOptions()
        store.state = nil
        store.wait = wait
        return CommandOptions(store: store, opensStateStore: false)
    }

    public func validate() throws {
        guard from != to else { throw ValidationError("store copy needs two different stores") }
        try options.store.validate()
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        guard let source = try context.openStore(at: from, access: .readOnly) else {
            throw FeedFailure.notFound("no store at \(Redaction.maskingSecrets(in: from))")
        }
        guard let target = try context.openStore(at: to, access: .readWrite) else {
            throw FeedFailure.storeAccess("cannot open \(Redaction.maskingSecrets(in: to))")
        }
        let feeds = try source.feeds()
        try target.receiveCopy(feeds: feeds, remembered: try source.rememberedIDs()) {
            (each: (Entry) throws(FeedFailure) -> Void) throws(FeedFailure) in
            try source.forEachEntry(feeds: [], unreadOnly: false, limit: nil, newestFirst: false, order: .stored) {
                entry in
                try each(entry)
                return true
            }
        }
        target.finish()
        return 0
    }
}

/// `feedcli store …`: the commands on a store as a whole.
public struct Store: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Work on a whole store.",
        subcommands: [StoreCopy.self, StoreCompact.self])

    public init() {}
}
