import FoundationEssentials

/// `--every` durations: a whole number and a unit, `45s`, `30m`, `2h`, `1d`, or `never` (a
/// plain `sync` never fetches the feed), which is the zero duration.
public enum EveryDuration {
    /// `never`: a plain `sync` (and `next --all`) leaves the feed alone; naming it or `--force`
    /// fetches it.
    public static let never: Duration = .zero

    public static func parse(_ text: String) -> Duration? {
        if text == "never" { return never }
        guard let unit = text.last, let number = Int(text.dropLast()), number > 0, number <= 366 * 86_400 else {
            return nil
        }
        let seconds: Int
        switch unit {
        case "s": seconds = number
        case "m": seconds = number * 60
        case "h": seconds = number * 3600
        case "d": seconds = number * 86_400
        default: return nil
        }
        return seconds <= 366 * 86_400 ? .seconds(seconds) : nil
    }

    public static func format(_ duration: Duration) -> String {
        if duration == never { return "never" }
        let seconds = Int(duration.components.seconds)
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
