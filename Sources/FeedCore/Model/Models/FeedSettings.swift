import FoundationEssentials

/// What `feeds add` and `feeds import` set beside a feed's registration (`--every`, `--keep`,
/// `--remember`), stored in the same transaction as the feed itself, so that no run ever sees the
/// feed without them. nil leaves a setting as the store holds it: for a new feed, no `--every`
/// and its kind's default retention.
public struct FeedSettings: Sendable, Equatable {
    public var every: Duration?
    public var keep: Retention.Keep?
    public var remember: Retention.Remember?
    /// The source feed's own title, as detection or an OPML file gave it (`FeedRecord.title`).
    public var title: String?

    public init(
        every: Duration? = nil, keep: Retention.Keep? = nil, remember: Retention.Remember? = nil, title: String? = nil
    ) {
        self.every = every
        self.keep = keep
        self.remember = remember
        self.title = title
    }

    /// A source feed's title as it is kept: trimmed, nil when empty, at most 200 characters (a
    /// server's `title` can be any size; an export's title need not be).
    public static func sourceTitle(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingWhitespace(), !trimmed.isEmpty else { return nil }
        return String(trimmed.prefix(200))
    }

    /// Whether a retention part was given.
    public var changesRetention: Bool { keep != nil || remember != nil }

    /// `current` with the given parts changed.
    public func retention(over current: Retention) -> Retention {
        Retention(keep: keep ?? current.keep, remember: remember ?? current.remember)
    }
}
