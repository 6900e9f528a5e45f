import FoundationEssentials

/// A size in bytes as people write it on a command line (`512M`, `1G`, `65536`, `64K`), for
/// `--jq-memory`: binary units (K = 1024), an optional `B` or `iB` after the unit.
public enum MemorySize {
    /// The bytes `text` means; nil for anything else, zero, or a size past `Int.max`.
    public static func parse(_ text: String) -> Int? {
        var digits = Substring(text)
        for suffix in ["iB", "B", "ib", "b"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits = digits.dropLast(suffix.count)
            break
        }
        var shift = 0
        if let unit = digits.last, let index = "KMGT".firstIndex(of: Character(unit.uppercased())) {
            shift = 10 * ("KMGT".distance(from: "KMGT".startIndex, to: index) + 1)
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int(digits), value > 0,
            value <= Int.max >> shift
        else { return nil }
        return value << shift
    }

    /// `bytes` in the largest unit that divides it (`512M`), else in bytes.
    public static func format(_ bytes: Int) -> String {
        for (unit, shift) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] where bytes > 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)"
    }
}
