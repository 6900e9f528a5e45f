/// A wait as people say it, to the minute past an hour and the hour past a day: `45s`, `30m`,
/// `5m30s`, `1h44m`, `2d3h` (the server's `Retry-After`, the next sync `status` shows).
public enum WaitText {
    public static func of(seconds: Int64) -> String {
        let seconds = max(0, seconds)
        let units: [(String, Int64)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)]
        guard let first = units.firstIndex(where: { seconds >= $0.1 }) else { return "0s" }
        let (unit, size) = units[first]
        var text = "\(seconds / size)\(unit)"
        if first + 1 < units.count {
            let (next, nextSize) = units[first + 1]
            let rest = seconds % size / nextSize
            if rest > 0 { text += "\(rest)\(next)" }
        }
        return text
    }
}
