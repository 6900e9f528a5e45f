import FeedModel
import FoundationEssentials

/// The `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, read without
/// traps and capped, because a server's number must never crash feedcli or silence a feed for
/// years. Parsed here rather than through curl's `CURLINFO_RETRY_AFTER`, whose 7.88 version
/// returns negative values for past dates and overflows on huge ones.
public enum RetryAfter {
    /// The longest wait honoured: a server asking for more gets this.
    public static let cap: Duration = .seconds(7 * 86_400)

    /// The wait `value` asks for, from `now`, in `0...cap`; nil when it is neither form.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingWhitespace()
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // Saturate: any run of digits longer than the cap's is the cap.
            let significant = text.drop(while: { $0 == "0" })
            guard significant.count <= 7, let seconds = Int(significant.isEmpty ? "0" : significant) else { return cap }
            return min(.seconds(seconds), cap)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        return seconds >= Double(cap.components.seconds) ? cap : .seconds(Int(seconds.rounded(.up)))
    }
}

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete
/// RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994` forms.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    public static func parse(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        // IMF-fixdate and RFC 850: weekday day month year time GMT; asctime: weekday month day time year.
        let day: Int?
        let month: Int?
        let year: Int?
        let time: String
        if words.count == 6, words[5] == "GMT" {
            day = Int(words[1])
            month = monthNumber(words[2])
            year = Int(words[3]).map { $0 < 100 ? ($0 < 70 ? 2000 + $0 : 1900 + $0) : $0 }
            time = words[4]
        } else if words.count == 5 {
            month = monthNumber(words[1])
            day = Int(words[2])
            year = Int(words[4])
            time = words[3]
        } else {
            return nil
        }
        let clock = time.split(separator: ":").map { Int($0) }
        guard let day, let month, let year, (1...31).contains(day), (1000...9999).contains(year), clock.count == 3,
            let hour = clock[0], let minute = clock[1], let second = clock[2],
            (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second)
        else { return nil }
        func digits(_ value: Int, _ count: Int) -> String { String(value).leftPadded(to: count) }
        return Timestamp.parse(
            "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))T"
                + "\(digits(hour, 2)):\(digits(minute, 2)):\(digits(second, 2))Z")
    }

    private static func monthNumber(_ word: String) -> Int? {
        months.firstIndex(of: word.lowercased()).map { $0 + 1 }
    }
}
