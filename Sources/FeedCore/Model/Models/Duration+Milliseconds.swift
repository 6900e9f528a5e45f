import FoundationEssentials

extension Duration {
    /// Whole milliseconds, rounded up so that a tiny positive duration is never 0 ("no limit" to curl).
    package var milliseconds: Int {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(clamping: millis)
    }
}
