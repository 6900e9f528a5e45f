import FoundationEssentials

/// What a feed keeps of its entries, and how long it remembers the ids of the ones it let go
/// (`feeds add|set --keep SPEC --remember DURATION`; the contract's "Running for months").
///
/// Entries beyond `keep` are pruned oldest first, read or unread alike, by the store as part of
/// the commits `sync` and `follow` make; a pruned entry's id is remembered for `remember`, so the
/// store still knows it (`FeedStoring.knownIDs`) and it is never delivered again.
public struct Retention: Sendable, Equatable {
    /// `--keep`: every entry, the newest N, or those stored less than a duration ago.
    public enum Keep: Sendable, Equatable {
        case all
        case newest(Int)
        case storedWithin(Duration)
    }

    /// `--remember`: how long a pruned entry's id is remembered.
    public enum Remember: Sendable, Equatable {
        case forever
        case `for`(Duration)
    }

    public var keep: Keep
    public var remember: Remember

    public init(keep: Keep, remember: Remember) {
        self.keep = keep
        self.remember = remember
    }

    /// A new feed's retention: polled feeds keep everything and remember for 90 days; streams
    /// keep 7 days and remember 1 day (their servers replay only around the resume position).
    public static func defaults(for kind: FeedKind) -> Retention {
        kind.isStream
            ? Retention(keep: .storedWithin(.seconds(7 * 86_400)), remember: defaultRemember(for: kind))
            : Retention(keep: .all, remember: defaultRemember(for: kind))
    }

    /// The `--remember` of a feed that never set one.
    public static func defaultRemember(for kind: FeedKind) -> Remember {
        .for(.seconds(kind.isStream ? 86_400 : 90 * 86_400))
    }

    /// Why this retention would deliver entries again and again, when it would: a count kept
    /// with ids remembered for no time at all (every sync of a feed whose server lists more
    /// than that count finds the pruned ones new again). Nil when it would not.
    public var whyRedelivers: String? {
        guard case .newest(let count) = keep, remember == .for(.zero) else { return nil }
        return "--keep \(count) with --remember 0s delivers the entries pruned past the newest \(count) again at "
            + "every sync (their ids are forgotten at once): remember them for as long as the server lists them "
            + "(--remember 1d), or keep a duration (--keep 30d)"
    }

    /// The longest duration either option takes (100 years): any longer is `all` or `forever`.
    static let longest = 36_500 * 86_400
}

extension Retention.Keep {
    /// `all`, a count (`10000`) or a duration (`30d`, `12h`, `90m`, `45s`); nil for anything else.
    public init?(_ text: String) {
        if text == "all" {
            self = .all
        } else if text.allSatisfy(\.isASCII), let count = Int(text), count > 0 {
            self = .newest(count)
        } else if let seconds = RetentionDuration.seconds(text) {
            self = .storedWithin(.seconds(seconds))
        } else {
            return nil
        }
    }

    /// The spelling `init?(_:)` reads back, as `feeds list` and OPML show it.
    public var text: String {
        switch self {
        case .all: "all"
        case .newest(let count): String(count)
        case .storedWithin(let duration): RetentionDuration.format(duration)
        }
    }
}

extension Retention.Remember {
    /// `forever` or a duration (`90d`, `1d`, `1m`, `0s`: not remembered at all).
    public init?(_ text: String) {
        if text == "forever" {
            self = .forever
        } else if let seconds = RetentionDuration.seconds(text, allowsZero: true) {
            self = .for(.seconds(seconds))
        } else {
            return nil
        }
    }

    public var text: String {
        switch self {
        case .forever: "forever"
        case .for(let duration): RetentionDuration.format(duration)
        }
    }

    /// Until when an id let go at `time` is remembered; nil for ever.
    public func until(_ time: Date) -> Date? {
        switch self {
        case .forever: nil
        case .for(let duration): time.addingTimeInterval(Double(duration.components.seconds))
        }
    }
}

/// The durations `--keep` and `--remember` take: a whole number and one unit of `s`, `m`, `h`,
/// `d`, at most 100 years (a number from the command line or a file never overflows).
package enum RetentionDuration {
    package static func seconds(_ text: String, allowsZero: Bool = false) -> Int? {
        guard let unit = text.last, text.dropLast().allSatisfy(\.isASCII),
            let number = Int(text.dropLast()), number > 0 || (allowsZero && number == 0)
        else { return nil }
        let size =
            switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86_400
            default: 0
            }
        guard size > 0, number <= Retention.longest / size else { return nil }
        return number * size
    }

    static func format(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        if seconds == 0 { return "0s" }
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
