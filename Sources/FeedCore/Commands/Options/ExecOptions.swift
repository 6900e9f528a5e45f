import ArgumentParser
import FeedModel

/// `--exec CMD` and `--exec-timeout DURATION` (`sync`, `follow`, `next`): each new entry handed
/// to a command instead of printed. The command comes from the command line only.
public struct ExecOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Hand each new entry to CMD (run by /bin/sh -c; the entry's JSON line on its stdin, "
                + "FEEDCLI_FEED, _ID, _TITLE, _URL, _HANDLE in its environment) instead of printing it; "
                + "an entry is committed once CMD exits 0.", valueName: "cmd"))
    public var exec: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long CMD may run for one entry before it is killed and counts as failed "
                + "(60s, 5m; a number is seconds).", valueName: "duration"))
    public var execTimeout = "60s"

    public init() {}

    /// The timeout as a duration; nil when it is not one.
    public var timeout: Duration? {
        if let seconds = Int(execTimeout) { return (1...86_400).contains(seconds) ? .seconds(seconds) : nil }
        guard let duration = EveryDuration.parse(execTimeout), duration != EveryDuration.never,
            duration > .zero, duration <= .seconds(86_400)
        else { return nil }  // at most a day, whatever its spelling (2d, 25h, 1441m are over it)
        return duration
    }

    /// Checked with the command's output format: a command takes entries instead of stdout, so
    /// `--json`/`--jsonl` (stdout's formats) cannot go with it.
    public func validate(with output: OutputOptions) throws {
        guard let exec else { return }
        if exec.isEmpty { throw ValidationError("--exec needs a command") }
        if let format = output.format {
            throw ValidationError(
                "--exec hands entries to a command, so --\(format.rawValue) (a format for stdout) cannot go with it")
        }
        if timeout == nil {
            throw ValidationError(
                "--exec-timeout takes a duration like 60s or 5m, at most a day (got '\(execTimeout)')")
        }
    }
}
