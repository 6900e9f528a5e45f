import FeedModel
import FeedReactor
import FoundationEssentials
import Synchronization

/// What a `follow` says on stderr about its feeds while it runs, drawn from the reactor's states
/// (a service runs for months: a failure said only at its end is never said). For each feed:
/// one line the moment it starts failing (the failure and what its exit code means), at most one
/// reminder an hour while it keeps failing ("still failing since …, N tries"), one line when it
/// recovers ("recovered after N failures, 12m"); and each warning as it comes.
///
/// Under systemd's journal (`JournalLines`) a temporary failure is `<4>`, any other `<3>`, a
/// recovery `<5>`.
///
/// Threading: `update` is called with each state in order, from whichever thread produced it
/// (the host publishes one state at a time); what it remembers is behind a mutex.
public final class FeedHealthLines: Sendable {
    /// The least time between two lines about one feed that keeps failing.
    public static let reminderInterval: TimeInterval = 3600

    /// What was said of a failing feed.
    private struct Failing {
        var since: Date
        var lastSaid: Date
        var tries: Int
    }

    private struct Memory {
        var revision = -1
        var failing: [String: Failing] = [:]
        var warningsSaid: [String: Int] = [:]
    }

    private let stderr: any OutputSink
    private let now: @Sendable () -> Date
    private let memory = Mutex(Memory())

    public init(stderr: any OutputSink, now: @escaping @Sendable () -> Date) {
        self.stderr = stderr
        self.now = now
    }

    /// A new state of the run: says what changed in its feeds' health since the last one.
    public func update(_ state: FeedReactorState) {
        let lines = memory.withLock { memory in Self.lines(from: state, memory: &memory, now: now()) }
        for (text, priority) in lines {
            let bytes = Array(("feedcli: " + TerminalText.safe(text) + "\n").utf8)
            if let journal = stderr as? JournalLines {
                try? journal.write(bytes, priority: priority)
            } else {
                try? stderr.write(bytes)  // stderr is the last place to say anything
            }
        }
    }

    /// The lines `state` calls for, each with its journal priority, given what was said before.
    private static func lines(from state: FeedReactorState, memory: inout Memory, now: Date) -> [(String, Int)] {
        if state.revision != memory.revision {  // a new action: nothing of the last one stands
            memory = Memory(revision: state.revision)
        }
        var lines: [(String, Int)] = []
        for (name, status) in state.feeds.sorted(by: { $0.key < $1.key }) {
            let said = memory.warningsSaid[name, default: 0]
            if status.warningCount > said {
                let fresh = min(status.warningCount - said, status.warnings.count)
                for warning in status.warnings.suffix(fresh) { lines.append(("\(name): warning: \(warning)", 4)) }
                memory.warningsSaid[name] = status.warningCount
            }
            // Ctrl-C and SIGTERM end a session: they are no failure of a feed.
            let failure = status.failure == .interrupted ? nil : status.failure
            switch (failure, memory.failing[name]) {
            case (let failure?, nil):
                memory.failing[name] = Failing(since: now, lastSaid: now, tries: status.failuresInARow)
                lines.append((failingLine(name, failure), priority(of: failure)))
            case (let failure?, var failing?):
                guard status.failuresInARow > failing.tries else { continue }
                failing.tries = status.failuresInARow
                if now.timeIntervalSince(failing.lastSaid) >= reminderInterval {
                    failing.lastSaid = now
                    lines.append(
                        (reminderLine(name, failure, since: failing.since, tries: failing.tries), priority(of: failure))
                    )
                }
                memory.failing[name] = failing
            case (nil, let failing?):
                memory.failing[name] = nil
                lines.append(
                    (recoveryLine(name, failures: failing.tries, after: now.timeIntervalSince(failing.since)), 5))
            case (nil, nil):
                continue
            }
        }
        return lines
    }

    private static func priority(of failure: FeedFailure) -> Int { failure.isTemporary ? 4 : 3 }

    /// The line said when a feed starts failing.
    package static func failingLine(_ feed: String, _ failure: FeedFailure) -> String {
        // "no feed named x" names the feed itself.
        if case .notFound = failure { return failure.description }
        return "\(feed): failing (\(failure.exitCode), \(failure.meaning)): \(failure)"
    }

    /// The reminder of a feed that keeps failing.
    package static func reminderLine(_ feed: String, _ failure: FeedFailure, since: Date, tries: Int) -> String {
        "\(feed): still failing since \(Timestamp.format(since)), \(tries) tries: \(failure)"
    }

    /// The line said when a failing feed succeeds again.
    package static func recoveryLine(_ feed: String, failures: Int, after seconds: TimeInterval) -> String {
        let count = failures == 1 ? "1 failure" : "\(failures) failures"
        return "\(feed): recovered after \(count), \(WaitText.of(seconds: Int64(max(0, seconds.rounded()))))"
    }
}
