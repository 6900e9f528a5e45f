/// swift-argument-parser's usage errors in feedcli's one error style, `feedcli: <what>: <why>`,
/// as every other message is (`feedcli: fireball: temporary failure…`): its
/// `Error: Unknown option '--bogus'` becomes `feedcli: list: unknown option '--bogus'`, the
/// command named as its usage line names it; the usage and help lines after it stay.
public enum UsageErrorStyle {
    public static func styled(_ message: String) -> String {
        guard message.hasPrefix("Error: ") else { return message }
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let why = String(lines[0].dropFirst("Error: ".count))
        let command = lines.lazy.compactMap(Self.command(inUsage:)).first
        let lowered =
            why.first.map { why.hasPrefix("--") || !$0.isUppercase ? why : $0.lowercased() + why.dropFirst() } ?? why
        lines[0] = "feedcli: " + (command.map { $0 + ": " } ?? "") + lowered
        return lines.joined(separator: "\n")
    }

    /// `list` of `Usage: feedcli list [<feeds> ...] …`, `feeds add` of `Usage: feedcli feeds add …`.
    static func command(inUsage line: String) -> String? {
        guard line.hasPrefix("Usage: feedcli ") else { return nil }
        let words = line.dropFirst("Usage: feedcli ".count).split(separator: " ")
            .prefix { word in word.allSatisfy { $0.isLetter || $0 == "-" } && !word.hasPrefix("-") }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
