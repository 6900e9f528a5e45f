import ArgumentParser
import FeedModel
import FoundationEssentials
import Glibc

/// `feedcli store compact`: every feed pruned to what it keeps now, at once (commits prune in
/// bounded steps), and the store rewritten to its smallest size. Says on stderr what it pruned
/// and the store's size before and after, for a file.
public struct StoreCompact: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Prune every feed to what it keeps and rewrite the store to its smallest size.")
    @OptionGroup var store: StoreOptions

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func run(_ context: CommandContext) throws -> Int32 {
        let store = try context.openStore()
        let before = Self.size(ofStoreAt: context.statePath)
        let outcome = try store.compact(now: context.now())
        store.finish()
        let after = Self.size(ofStoreAt: context.statePath)
        var message =
            "feedcli: compacted \(TerminalText.safe(store.location)): pruned \(outcome.pruned) "
            + "entr\(outcome.pruned == 1 ? "y" : "ies") (\(outcome.unread) unread)"
        if let before, let after { message += "; \(ByteCount.of(before)) before, \(ByteCount.of(after)) now" }
        try? context.stderr.write(message + "\n")
        return 0
    }

    /// A SQLite store's size on disk, its journal included; nil for a database or no file.
    static func size(ofStoreAt path: String) -> Int? {
        func size(_ path: String) -> Int? {
            var info = stat()
            return stat(path, &info) == 0 ? Int(info.st_size) : nil
        }
        guard let store = size(path) else { return nil }
        return store + (size(path + "-wal") ?? 0)
    }
}
