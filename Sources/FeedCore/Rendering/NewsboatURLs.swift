/// Lines of newsboat's `urls` file for feedcli's feeds: each an `exec:` URL (newsboat runs it
/// through `/bin/sh` and reads what it prints as a feed) of `feedcli export NAME --format atom`
/// on the store at `state`, titled with the feed's name (`~NAME`).
public enum NewsboatURLs {
    public static func lines(_ names: [String], state: String) -> String {
        names.map { name in
            let command = "feedcli export \(shellQuoted(name)) --format atom --state \(shellQuoted(state))"
            return "\(newsboatQuoted("exec:" + command)) \(newsboatQuoted("~" + name))\n"
        }.joined()
    }

    /// One word for `/bin/sh`: single-quoted, a `'` inside written `'\''`.
    static func shellQuoted(_ word: String) -> String {
        "'" + word.map { $0 == "'" ? #"'\''"# : String($0) }.joined() + "'"
    }

    /// One token of a newsboat `urls` line: double-quoted, `\` and `"` inside escaped.
    static func newsboatQuoted(_ token: String) -> String {
        "\"" + token.map { $0 == "\\" || $0 == "\"" ? "\\" + String($0) : String($0) }.joined() + "\""
    }
}
