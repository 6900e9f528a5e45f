import FeedBase
import FeedModel
import FeedReactor
import FeedRendering
import FoundationEssentials

/// `--exec CMD`: an output that hands each entry to a command instead of printing it. An entry
/// counts as delivered (and is then committed) only once the command exited 0 for it, so the
/// reactor's print-then-commit proofs hold for it as for stdout: at least once.
///
/// Entries go one at a time, in order, each to its own run of the command, with the entry as
/// one JSON line (as `--jsonl` prints it) on the command's stdin and `FEEDCLI_FEED`,
/// `FEEDCLI_ID`, `FEEDCLI_TITLE`, `FEEDCLI_URL`, `FEEDCLI_HANDLE` in its environment. The first
/// entry the command refuses (exit status not 0, killed, past its timeout) ends the delivery
/// with `.refused`: the entries before it are delivered, it and the rest are not, and only its
/// feed stops. Once the run is interrupted, no further command starts (the one running is waited
/// for: its entry is delivered or not as it decides, never half).
///
/// Thread-safe: one command at a time over all feeds, whichever thread delivers.
public final class ExecOutput: EntryOutput {
    private let command: EntryCommand
    private let interruption: Interruption?
    private let block = RecursiveLock()

    package init(command: EntryCommand, interruption: Interruption?) {
        self.command = command
        self.interruption = interruption
    }

    public func deliver(_ entries: [Entry]) -> DeliveryReport {
        block.withLock {
            for (index, entry) in entries.enumerated() {
                if interruption?.isTriggered == true { return DeliveryReport(delivered: index, failure: .interrupted) }
                let line = EntryRenderer.json(entry) + [0x0A]
                let variables = Self.variables(of: entry)
                let outcome =
                    interruption?.seeingThrough { command.run(line: line, variables: variables) }
                    ?? command.run(line: line, variables: variables)
                guard outcome.succeeded else {
                    let why =
                        FeedFailure.commandRefusalPrefix
                        + "\(Self.describe(outcome, timeout: command.timeout)) for \(entry.feed) \(entry.handle) "
                        + "(id \(EntryCommand.variableValue(entry.id))): it and the entries after it are not committed"
                    return DeliveryReport(delivered: index, failure: .refused(why))
                }
            }
            return DeliveryReport(delivered: entries.count)
        }
    }

    /// A command per entry: what it took is committed as it goes.
    public var takesTimePerEntry: Bool { true }

    public func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        try block.withLock(body)
    }

    /// The command's environment variables for `entry`: plain text, control characters removed;
    /// a field the entry lacks is an empty string.
    package static func variables(of entry: Entry) -> [String: String] {
        [
            "FEEDCLI_FEED": EntryCommand.variableValue(entry.feed),
            "FEEDCLI_ID": EntryCommand.variableValue(entry.id),
            "FEEDCLI_TITLE": EntryCommand.variableValue(entry.title ?? ""),
            "FEEDCLI_URL": EntryCommand.variableValue(entry.url ?? ""),
            "FEEDCLI_HANDLE": entry.handle,
        ]
    }

    private static func describe(_ outcome: EntryCommand.Outcome, timeout: Duration) -> String {
        switch outcome {
        case .exited(let status): "exited \(status)"
        case .killed(let signal): "was killed by signal \(signal)"
        case .timedOut: "ran past --exec-timeout (\(timeout.components.seconds) s) and was killed"
        case .notStarted(let error): "could not start /bin/sh (errno \(error))"
        }
    }
}
