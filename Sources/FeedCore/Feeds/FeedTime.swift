import FeedModel
import FoundationEssentials

/// A `json` feed's `--published` value as an RFC 3339 UTC time, by the contract: RFC 3339, RFC
/// 2822 (`Tue, 10 Jun 2003 04:00:00 +0000`), or Unix seconds or milliseconds (a number above
/// 10^11 is taken as milliseconds: 10^11 seconds is the year 5138); anything else is nil.
package enum FeedTime {
    package static func normalize(_ value: JSON) -> String? {
        switch value {
        case .string(let text):
            return Timestamp.normalize(text) ?? mailDate(text).map(Timestamp.format)
                ?? (Double(text) != nil ? normalize(.number(text)) : nil)
        case .number(let text):
            guard var seconds = Double(text), seconds.isFinite else { return nil }
            if abs(seconds) >= 1e11 { seconds /= 1000 }
            // Years 1 to 9999 only.
            guard seconds >= -62_135_596_800, seconds <= 253_402_300_799 else { return nil }
            return Timestamp.format(Date(timeIntervalSince1970: seconds))
        default:
            return nil
        }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// RFC 2822's date-time: `[Day,] DD Mon YYYY HH:MM[:SS] ZONE`, ZONE `+hhmm`, `-hhmm`, `GMT`,
    /// `UT`, `UTC` or `Z`.
    package static func mailDate(_ text: String) -> Date? {
        var words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        if let first = words.first, first.count == 3, Int(first) == nil { words.removeFirst() }
        guard words.count == 5, let day = Int(words[0]), (1...31).contains(day),
            let month = months.firstIndex(of: words[1].lowercased()),
            let year = Int(words[2]), (1000...9999).contains(year)
        else { return nil }
        let clock = words[3].split(separator: ":").map { Int($0) }
        guard clock.count == 2 || clock.count == 3, let hour = clock[0], let minute = clock[1],
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        let second = clock.count == 3 ? clock[2] : 0
        guard let second, (0...60).contains(second) else { return nil }
        let zone: String
        switch words[4].uppercased() {
        case "GMT", "UT", "UTC", "Z": zone = "Z"
        case let offset
        where offset.count == 5 && (offset.hasPrefix("+") || offset.hasPrefix("-"))
            && Int(offset.dropFirst()) != nil:
            zone = "\(offset.prefix(3)):\(offset.suffix(2))"
        default: return nil
        }
        func digits(_ value: Int, _ count: Int) -> String { String(value).leftPadded(to: count) }
        return Timestamp.parse(
            "\(digits(year, 4))-\(digits(month + 1, 2))-\(digits(day, 2))T"
                + "\(digits(hour, 2)):\(digits(minute, 2)):\(digits(second, 2))\(zone)")
    }
}
