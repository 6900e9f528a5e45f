import FoundationEssentials

/// RFC 3339 timestamps, the only time format feedcli prints: `2026-11-21T19:00:00Z`, always UTC.
///
/// Parsing accepts what feeds send: RFC 3339 with `Z` or `±hh:mm`, the Graph API's `±hhmm`,
/// and optional fractional seconds. Hand-written because `ISO8601DateFormatter` rejects the Graph
/// spelling and is slow enough to matter when listing 100,000 entries.
public enum Timestamp {
    /// Dates outside years 1–9999 (only a server's nonsense gets there) are clamped to them.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let bounded = interval.isNaN ? 0 : min(max(interval, -62_135_596_800), 253_402_300_799)
        // By arithmetic, not `gmtime_r`: glibc loads the local time zone on its first call even
        // for UTC, a file read that every short run (a `next`) would pay.
        let seconds = Int(bounded.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        // Digits written by hand: `String(format:)` costs more than the rest of a 304's
        // bookkeeping, and a sync of 1,000 feeds formats 1,000 times.
        var text: [UInt8] = []
        text.reserveCapacity(20)
        func append(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            var value = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                value %= divisor
                divisor /= 10
            }
        }
        append(year, digits: 4)
        text.append(UInt8(ascii: "-"))
        append(month, digits: 2)
        text.append(UInt8(ascii: "-"))
        append(day, digits: 2)
        text.append(UInt8(ascii: "T"))
        append(time / 3600, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(time / 60 % 60, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(time % 60, digits: 2)
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses an RFC 3339 (or Graph-style) timestamp; nil when it is not one.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<(position + digits)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += digits
            return value
        }
        // Bytes, not a String of choices: its UTF-8 view was searched on every call, the most
        // of what reading a store's times cost.
        func expect(_ first: UInt8, or second: UInt8? = nil, or third: UInt8? = nil) -> Bool {
            guard position < bytes.count else { return false }
            let byte = bytes[position]
            guard byte == first || byte == second || byte == third else { return false }
            position += 1
            return true
        }
        let colon = UInt8(ascii: ":")
        let dash = UInt8(ascii: "-")
        guard let year = number(4), expect(dash), let month = number(2), expect(dash), let day = number(2),
            expect(UInt8(ascii: "T"), or: UInt8(ascii: "t"), or: UInt8(ascii: " ")), let hour = number(2),
            expect(colon),
            let minute = number(2), expect(colon),
            let second = number(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }  // an impossible date (`2026-02-30`) is none, never rolled over
        var fraction = 0.0
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            var scale = 0.1
            let start = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                fraction += Double(bytes[position] - 0x30) * scale
                scale /= 10
                position += 1
            }
            guard position > start else { return nil }
        }
        var offset = 0
        if expect(UInt8(ascii: "Z"), or: UInt8(ascii: "z")) {
            offset = 0
        } else if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
            let sign = bytes[position] == UInt8(ascii: "-") ? -1 : 1
            position += 1
            guard let hours = number(2) else { return nil }
            _ = expect(colon)
            guard let minutes = number(2) else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard position == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// The days of `month` (1–12) in the proleptic Gregorian `year`.
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Normalizes a feed's timestamp to UTC RFC 3339; nil for anything unparseable.
    public static func normalize(_ text: String?) -> String? {
        text.flatMap(parse).map(format)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (the inverse of
    /// `daysFromCivil`, Howard Hinnant's algorithm).
    private static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
