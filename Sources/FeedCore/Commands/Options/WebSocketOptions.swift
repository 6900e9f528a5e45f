import ArgumentParser
import FeedModel

/// What a WebSocket feed subscribes to (`feeds add --kind jetstream|nostr`): Jetstream's
/// accounts and collections (made part of its URL), a Nostr relay's filter (stored with the
/// feed; `--author` is the expressions' option, read as public keys for nostr).
public struct WebSocketOptions: ParsableArguments {
    @Option(
        name: .customLong("did"),
        help: ArgumentHelp("jetstream: only this account's events (repeatable).", valueName: "did"))
    var dids: [String] = []
    @Option(
        name: .customLong("collection"),
        help: ArgumentHelp(
            "jetstream: only this collection (repeatable; default app.bsky.feed.post).", valueName: "nsid"))
    var collections: [String] = []
    @Option(
        name: .customLong("nostr-kind"),
        help: ArgumentHelp("nostr: only events of this kind (repeatable; default 1).", valueName: "n"))
    var nostrKinds: [Int] = []
    @Option(
        name: .customLong("tag"),
        help: ArgumentHelp("nostr: only events with this tag, like t=nostr (repeatable).", valueName: "name=value"))
    var tags: [String] = []
    @Option(
        parsing: .unconditional,  // `--since -1d` is refused in this option's words
        help: ArgumentHelp("nostr: how far back the first connection asks (default 1d).", valueName: "duration"))
    var since: String?

    public init() {}

    public func validate() throws {
        if let since, Self.duration(since) == nil {
            throw ValidationError("--since takes a duration like 12h, 1d or 30d")
        }
        if let tag = tags.first(where: { NostrFilter.tag($0) == nil }) {
            throw ValidationError("--tag takes NAME=VALUE with a one-letter name, like t=nostr: \(tag)")
        }
        if nostrKinds.contains(where: { $0 < 0 || $0 > 65_535 }) {
            throw ValidationError("--nostr-kind takes an event kind, 0 to 65535")
        }
    }

    /// Whether any option was given.
    var isGiven: Bool { !dids.isEmpty || !collections.isEmpty || !nostrKinds.isEmpty || !tags.isEmpty || since != nil }

    /// Whether a Nostr option was given.
    var givesNostrFilter: Bool { !nostrKinds.isEmpty || !tags.isEmpty || since != nil }

    /// The Nostr filter these options and `authors` make.
    func nostrFilter(authors: [String]) -> NostrFilter {
        NostrFilter(
            authors: authors, kinds: nostrKinds.isEmpty ? NostrFilter.defaultKinds : nostrKinds,
            tags: tags.compactMap(NostrFilter.tag), since: since.flatMap(Self.duration) ?? NostrFilter.defaultSince)
    }

    /// `12h`, `1d`, `30m`, `90s` as a duration (at most 36,500 days); nil otherwise.
    static func duration(_ text: String) -> Duration? {
        RetentionDuration.seconds(text).map { .seconds($0) }
    }
}
