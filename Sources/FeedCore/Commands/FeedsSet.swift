import ArgumentParser
import FeedKinds
import FeedModel
import FeedStore
import FeedStoreContract
import FoundationEssentials

/// `feedcli feeds set NAME… | --all [--every DURATION|never] [--keep SPEC] [--remember DURATION] [--token-env VAR] [jq expressions]`:
/// changes what is given, in each feed named (or every feed with `--all`; an unknown name is 66
/// before any feed changes; an empty expression or variable unsets one); entries, read state
/// and cursors are kept, except that a `--filter` given also applies to the stored unread
/// entries: those it drops are marked read, and the command says how many.
public struct FeedsSet: FeedcliCommand {
    public static let configuration = CommandConfiguration(
        commandName: "set",
        abstract:
            "Change feeds in place: how often a plain sync fetches them, what they keep, their jq expressions.")
    @Argument(help: "The feeds.", completion: .feedNames) var names: [String] = []
    @Flag(help: "Every feed.") var all = false
    @Option(help: ArgumentHelp("30m, 2h, 1d, or never; '' fetches it on every sync again.", valueName: "duration"))
    var every: String?
    @Option(help: ArgumentHelp("Environment variable holding the feed's bearer token ('' for none).", valueName: "VAR"))
    var tokenEnv: String?
    @OptionGroup(title: "Retention") var retention: RetentionOptions
    @OptionGroup(title: "jq expressions (json feeds; --filter for any feed; '' unsets one)") var jq: ExpressionOptions
    @OptionGroup var store: StoreOptions
    /// Not an option of `set`: a feed's kind is changed by adding it again. Accepted only to say so.
    @Option(help: .hidden) var kind: String?

    public init() {}

    public var options: CommandOptions { CommandOptions(store: store) }

    public func validate() throws {
        if kind != nil {
            throw ValidationError(
                "feeds set does not change a feed's kind: add it again with "
                    + "feeds add \(names.first ?? "NAME") URL --kind KIND --replace (its entries are kept)")
        }
        if names.isEmpty == !all {
            throw ValidationError(all ? "give feed names or --all, not both" : "give the feeds to change, or --all")
        }
        if jq.authors.count > 1 {
            throw ValidationError("--author is given once (a nostr feed's authors change with feeds add --replace)")
        }
        if let every, !every.isEmpty, EveryDuration.parse(every) == nil {
            throw ValidationError("--every takes a duration like 30m, 2h or 1d, never, or '' to unset it")
        }
        if every == nil, tokenEnv == nil, !retention.isGiven, jq.expressions == FeedExpressions() {
            throw ValidationError(
                "give what to change: --every, --keep, --remember, --token-env, --filter or a json feed's expressions")
        }
    }

    public func run(_ context: CommandContext) throws -> Int32 {
        let store = try context.openStore()
        // Every feed looked up (and its change checked) before any changes: a typo changes nothing.
        let records =
            all ? try store.feeds() : try names.map { name throws(FeedFailure) in try store.feed(named: name) }
        let changes = jq.expressions
        if changes.hasMapping, let other = records.first(where: { !$0.registration.kind.usesExpressions }) {
            throw FeedFailure.usage(
                "--items, --id, --next-url and the other mapping options are for json feeds; "
                    + "\(other.name) is \(other.registration.kind.rawValue)")
        }
        if retention.isGiven,
            let why = records.lazy.compactMap({ self.retention.applied(to: $0.retention).whyRedelivers }).first
        {
            throw FeedFailure.usage(why)
        }
        for record in records { try change(record, store: store, context: context) }
        return 0
    }

    /// Changes one feed as the options say.
    private func change(_ record: FeedRecord, store: any StateStore, context: CommandContext) throws {
        let name = record.name
        if let tokenEnv {
            // '' unsets it.
            let variable = tokenEnv.isEmpty ? nil : tokenEnv
            if let variable, !FeedRegistration.isValidVariableName(variable) {
                throw FeedFailure.usage(
                    "--token-env takes an environment variable's name (letters, digits, _): \(variable)")
            }
            try store.setTokenEnv(feed: name, variable)
        }
        let changes = jq.expressions
        if changes != FeedExpressions() {
            var changed = record.registration
            changed.expressions = changed.expressions.merging(changes)
            if changed.expressions.hasMapping, !changed.kind.usesExpressions {
                throw FeedFailure.usage(
                    "--items, --id, --next-url and the other mapping options are for json feeds; "
                        + "\(name) is \(record.registration.kind.rawValue)")
            }
            try FeedAdmission.check(changed, context: context)
            // A filter given applies to what is stored and unread too: asked before anything
            // changes, so an entry it fails on leaves the feed as it was.
            var dropped: (numbers: [Int64], unread: Int)?
            if let filter = changes.filter, !filter.isEmpty {
                dropped = try droppedByFilter(changed, store: store, context: context)
            }
            try store.setExpressions(feed: name, changed.expressions)
            if let dropped {
                let marked = try store.markRead(feed: name, numbers: dropped.numbers)
                let entries = dropped.unread == 1 ? "entry" : "entries"
                try? context.stderr.write(
                    "feedcli: \(name): the filter drops \(marked) of \(dropped.unread) stored unread \(entries); "
                        + "marked read\n")
            }
        }
        // '' fetches it on every sync again.
        if let every { try store.setEvery(feed: name, every.isEmpty ? nil : EveryDuration.parse(every)) }
        if retention.isGiven { try store.setRetention(feed: name, retention.applied(to: record.retention)) }
    }

    /// The stored unread entries of the feed that its (new) filter drops, and how many are unread.
    private func droppedByFilter(
        _ feed: FeedRegistration, store: any StateStore, context: CommandContext
    ) throws(FeedFailure) -> (numbers: [Int64], unread: Int) {
        guard let filter = feed.itemFilter(jq: context.fetch.jq) else { return ([], 0) }
        var unread: [Entry] = []
        try store.forEachEntry(feeds: [feed.name], unreadOnly: true, limit: nil, newestFirst: false) { entry in
            unread.append(entry)
            return true
        }
        return (try filter.dropped(unread), unread.count)
    }
}
