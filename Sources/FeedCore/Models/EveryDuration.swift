/// `--every` durations: a whole number and a unit, `45s`, `30m`, `2h`, `1d`.
public enum EveryDuration {
    public static func parse(_ text: String) -> Duration? {
        guard let unit = text.last, let number = Int(text.dropLast()), number > 0, number <= 366 * 86_400 else { return nil }
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
        let seconds = Int(duration.components.seconds)
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
