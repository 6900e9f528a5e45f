import FeedModel
import FoundationEssentials
import Glibc
import Synchronization

/// Output longer than the screen through `$PAGER`, as git does: for the commands that only read
/// (`list`, `show`, `status`, `feeds list`), in plain text, when stdout is a terminal. Never when
/// stdout is piped or a file, never for `--json` or `--jsonl`, and never for `next` and `sync`,
/// whose deliveries count only what their reader took.
///
/// Output is held until it has more lines than the screen; then the pager starts (`/bin/sh -c
/// "$PAGER"`, as git runs it; `less -FRX` when `$PAGER` is unset and less is installed, with
/// `LESS=FRX` unless set) and gets what was held and everything after. Shorter output goes to
/// the terminal when the command ends, and no pager runs. `PAGER=` or `PAGER=cat` turns it off.
/// Quitting the pager early is a reader going away: the command stops quietly.
public final class Pager: OutputSink {
    /// A started pager: its process, and the pipe to its input (the descriptor and its sink).
    private struct Running {
        var pid: pid_t
        var descriptor: Int32
        var pipe: FileDescriptorSink
    }

    private struct State {
        var held: [UInt8] = []
        var lines = 0
        var running: Running?
        var failedToStart = false
    }

    private let terminal: any OutputSink
    private let command: String
    private let rows: Int
    private let environment: [String: String]
    private let state = Mutex(State())

    /// A pager's process while one runs: a signal's last-resort exit waits for it, so the
    /// terminal is never left to a pager whose writer has gone.
    private static let runningPID = Mutex<pid_t?>(nil)

    /// The pager for a command's `stdout`, or nil when output goes straight to it (not plain
    /// text, not a terminal, no pager named).
    package static func forStdout(_ stdout: any OutputSink, plain: Bool, environment: [String: String]) -> Pager? {
        guard plain, stdout.isTerminal, let rows = stdout.rows, rows > 1,
            let command = command(environment: environment)
        else { return nil }
        return Pager(terminal: stdout, command: command, rows: rows, environment: environment)
    }

    /// `$PAGER`, else `less -FRX` when less is on `PATH`; nil for none (`PAGER=`, `PAGER=cat`).
    package static func command(environment: [String: String]) -> String? {
        if let pager = environment["PAGER"] {
            let trimmed = pager.trimmingWhitespace()
            return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
        }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        let hasLess = path.split(separator: ":").contains { access("\($0)/less", X_OK) == 0 }
        return hasLess ? "less -FRX" : nil
    }

    package init(terminal: any OutputSink, command: String, rows: Int, environment: [String: String]) {
        self.terminal = terminal
        self.command = command
        self.rows = rows
        var environment = environment
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        self.environment = environment
    }

    public var isTerminal: Bool { true }
    public var columns: Int? { terminal.columns }

    public func write(_ bytes: [UInt8]) throws(OutputError) {
        // What to write now and where: nothing while output is held, all that was held when the
        // pager has just started.
        let (target, pending) = state.withLock { state -> (FileDescriptorSink?, [UInt8]) in
            if let running = state.running { return (running.pipe, bytes) }
            state.held += bytes
            state.lines += bytes.lazy.filter { $0 == UInt8(ascii: "\n") }.count
            guard state.lines >= rows, !state.failedToStart else { return (nil, []) }
            guard let running = start() else {
                state.failedToStart = true
                return (nil, [])
            }
            state.running = running
            defer { state.held = [] }
            return (running.pipe, state.held)
        }
        guard let target else { return }
        try target.write(pending)
    }

    /// Hands what is held to the terminal (no pager was needed), or closes the pager's input and
    /// waits for the user to quit it.
    public func finish() throws(OutputError) {
        let (held, running) = state.withLock { state in
            defer {
                state.held = []
                state.running = nil
            }
            return (state.held, state.running)
        }
        guard let running else {
            if !held.isEmpty { try terminal.write(held) }
            return
        }
        close(running.descriptor)
        Launcher.wait(for: running.pid)
        Self.runningPID.withLock { $0 = nil }
    }

    /// Waits for a running pager to end (for the signal handler's last-resort exit).
    public static func waitForRunningPager() {
        guard let pid = runningPID.withLock({ $0 }) else { return }
        Launcher.wait(for: pid)
    }

    /// Starts `/bin/sh -c COMMAND` reading a pipe; nil when it cannot start.
    private func start() -> Running? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let pid = Launcher.start(["/bin/sh", "-c", command], environment: environment, stdin: ends[0])
        close(ends[0])
        guard let pid else {
            close(ends[1])
            return nil
        }
        Self.runningPID.withLock { $0 = pid }
        return Running(pid: pid, descriptor: ends[1], pipe: FileDescriptorSink(descriptor: ends[1]))
    }
}
