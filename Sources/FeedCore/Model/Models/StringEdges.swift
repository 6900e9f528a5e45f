import FoundationEssentials

/// Small text helpers FoundationEssentials does not offer (full Foundation is not linked: see
/// `Platform.swift`).
extension StringProtocol {
    /// The text without leading and trailing whitespace (spaces, tabs, line breaks).
    package func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }

    /// The text with zeros in front up to `width` characters (digits of a date, a hex byte).
    package func leftPadded(to width: Int) -> String {
        count >= width ? String(self) : String(repeating: "0", count: width - count) + self
    }
}
