import ArgumentParser
import FeedModel

/// `--keep SPEC` and `--remember DURATION` of `feeds add` and `feeds set` (the contract's
/// "Running for months").
public struct RetentionOptions: ParsableArguments {
    // `.unconditional`: `--keep -1` is a value the option refuses in its own words, not a
    // missing value followed by an unknown option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "What the feed keeps: all, the newest N (10000), or what was stored within a duration (30d, 12h). "
                + "Default: all for polled feeds, 7d for streams.", valueName: "spec"))
    var keep: String?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long the id of an entry --keep let go is remembered, so it is never delivered again "
                + "(90d, 1d, forever). Default: 90d for polled feeds, 1d for streams.", valueName: "duration"))
    var remember: String?

    public init() {}

    public func validate() throws {
        if let keep, Retention.Keep(keep) == nil {
            throw ValidationError(
                "--keep takes all, a count like 10000, or a duration like 30d, 12h or 90m (at most 36500d)")
        }
        if let remember, Retention.Remember(remember) == nil {
            throw ValidationError("--remember takes a duration like 90d, 12h or 0s, or forever (at most 36500d)")
        }
        if let keep = keep.flatMap(Retention.Keep.init), let remember = remember.flatMap(Retention.Remember.init),
            let why = Retention(keep: keep, remember: remember).whyRedelivers
        {
            throw ValidationError(why)
        }
    }

    /// Whether either option was given.
    var isGiven: Bool { keep != nil || remember != nil }

    /// What was given, as the settings `feeds add` stores with the feed.
    var settings: FeedSettings {
        FeedSettings(keep: keep.flatMap(Retention.Keep.init), remember: remember.flatMap(Retention.Remember.init))
    }

    /// `current` with what was given changed.
    func applied(to current: Retention) -> Retention {
        var retention = current
        if let keep = keep.flatMap(Retention.Keep.init) { retention.keep = keep }
        if let remember = remember.flatMap(Retention.Remember.init) { retention.remember = remember }
        return retention
    }
}
