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
    private struct State {
        var held: [UInt8] = []
        var lines = 0
        /// The pager's process and the pipe to it, once started.
        var pid: pid_t?
        var pipe: FileDescriptorSink?
        var pipeDescriptor: Int32 = -1
        var failedToStart = false
    }

    private let terminal: any OutputSink
    private let command: String
    private let rows: Int
    private let environment: [String: String]
    private let state = Mutex(State())

    /// A pager's process while one runs: a signal's last-resort exit waits for it, so the
    /// terminal is never left to a pager whose writer has gone.
    private static let running = Mutex<pid_t?>(nil)

    /// The pager for `context`'s stdout, or nil when output goes straight to it.
    static func forStdout(of context: CommandContext) -> Pager? {
        guard context.format == .plain, context.stdout.isTerminal, let rows = context.stdout.rows, rows > 1,
              let command = command(environment: context.environment) else { return nil }
        return Pager(terminal: context.stdout, command: command, rows: rows, environment: context.environment)
    }

    /// `$PAGER`, else `less -FRX` when less is on `PATH`; nil for none (`PAGER=`, `PAGER=cat`).
    static func command(environment: [String: String]) -> String? {
        if let pager = environment["PAGER"] {
            let trimmed = pager.trimmingWhitespace()
            return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
        }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        let hasLess = path.split(separator: ":").contains { access("\($0)/less", X_OK) == 0 }
        return hasLess ? "less -FRX" : nil
    }

    init(terminal: any OutputSink, command: String, rows: Int, environment: [String: String]) {
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
        let target = state.withLock { state -> FileDescriptorSink? in
            if let pipe = state.pipe { return pipe }
            state.held += bytes
            state.lines += bytes.lazy.filter { $0 == UInt8(ascii: "\n") }.count
            guard state.lines >= rows, !state.failedToStart else { return nil }
            guard let started = start() else {
                state.failedToStart = true
                return nil
            }
            (state.pid, state.pipe, state.pipeDescriptor) = (started.pid, started.pipe, started.descriptor)
            return started.pipe
        }
        guard let target else { return }
        let held = state.withLock { state -> [UInt8] in
            defer { state.held = [] }
            return state.held
        }
        try target.write(held.isEmpty ? bytes : held)
    }

    /// Hands what is held to the terminal (no pager was needed), or closes the pager's input and
    /// waits for the user to quit it.
    public func finish() throws(OutputError) {
        let (held, pid, descriptor) = state.withLock { state in
            defer { state.held = []; state.pipe = nil }
            return (state.held, state.pid, state.pipeDescriptor)
        }
        guard let pid else {
            if !held.isEmpty { try terminal.write(held) }
            return
        }
        close(descriptor)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        Self.running.withLock { $0 = nil }
    }

    /// Waits for a running pager to end (for the signal handler's last-resort exit).
    public static func waitForRunningPager() {
        guard let pid = running.withLock({ $0 }) else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    }

    /// Starts `/bin/sh -c COMMAND` reading a pipe; nil when it cannot start.
    private func start() -> (pid: pid_t, pipe: FileDescriptorSink, descriptor: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        let arguments = ["/bin/sh", "-c", command]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        var attributes = Launcher.defaultSignals()
        defer { posix_spawnattr_destroy(&attributes) }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, env)
        close(ends[0])
        guard spawned == 0 else {
            close(ends[1])
            return nil
        }
        Self.running.withLock { $0 = pid }
        return (pid, FileDescriptorSink(descriptor: ends[1]), ends[1])
    }
}
