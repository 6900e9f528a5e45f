import FeedBase
import Foundation

/// A child process started with `posix_spawn`, with no descriptor of the test process but the
/// three it is given, and reaped by a thread of its own: what the tests start `feedcli`, shells
/// and scripts with.
///
/// Why not Foundation's `Process`: it learns of a child's exit when a socket shared with the
/// child closes, and a child that Foundation did not start (a PostgreSQL server started by a
/// script through `system(3)`, which passes every descriptor on) inherits that socket and keeps it
/// open for as long as it runs: the exit is then never seen, and a test waited for it until its
/// time limit. A spawned process inherits nothing but stdin, stdout and stderr, and its exit
/// comes from `waitpid` on its own pid, whatever else runs.
public final class SpawnedProcess: Sendable {
    public enum TerminationReason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    public struct SpawnFailed: Error, CustomStringConvertible {
        public var executable: String
        public var code: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    public let processIdentifier: pid_t
    /// The raw `waitpid` status, once the child has ended.
    private let status = Locked<Int32?>(nil)
    private let ended = TestSignal()

    /// Starts `executable` with `arguments` and exactly `environment`; its stdin is `stdin` (or
    /// /dev/null), its stdout and stderr the descriptors given (the caller keeps and closes its
    /// own copies). Signals are as a fresh process has them: nothing blocked, nothing ignored.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdin: Int32? = nil, stdout: Int32, stderr: Int32
    ) throws(SpawnFailed) {
        let pid = try Self.spawn(
            executable, arguments, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr)
        processIdentifier = pid
        let status = self.status
        let ended = self.ended
        let reaper = Thread {
            let raw = Self.reap(pid)
            status.withLock { $0 = raw }
            ended.signal()
        }
        reaper.name = "reaper of \(pid)"
        reaper.start()
    }

    /// Runs `executable` to its end on the calling thread, which it blocks (for a thread of the
    /// caller's own, or an `atexit` handler): its exit status, or 127 when it could not start.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String], stdout: Int32, stderr: Int32
    ) -> Int32 {
        guard
            let pid = try? spawn(
                executable, arguments, environment: environment, stdin: nil, stdout: stdout, stderr: stderr)
        else {
            return 127
        }
        let raw = reap(pid)
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    private static func reap(_ pid: pid_t) -> Int32 {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1, errno == EINTR {}
        return raw
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdin: Int32?, stdout: Int32, stderr: Int32
    ) throws(SpawnFailed) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        guard addCloseFrom(&actions, 3) == 0 else { throw SpawnFailed(executable: executable, code: ENOSYS) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var every = sigset_t()
        sigemptyset(&none)
        sigfillset(&every)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw SpawnFailed(executable: executable, code: code) }
        return pid
    }

    public var isRunning: Bool { status.value == nil }

    /// The exit status, or the signal that ended it (as Foundation's `Process` reports them).
    public var terminationStatus: Int32 {
        guard let raw = status.value else { return -1 }
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
    }

    public var terminationReason: TerminationReason {
        guard let raw = status.value, raw & 0x7F != 0 else { return .exit }
        return .uncaughtSignal
    }

    /// Whether the child ended within `seconds` (a bound against a hang, not a measurement);
    /// awaited, holding no thread. Any number of callers may wait.
    public func exit(seconds: Double = 300) async -> Bool {
        if !isRunning { return true }
        guard await ended.wait(seconds: seconds) else { return false }
        ended.signal()
        return true
    }

    /// Sends `signal` to the child (nothing once it has been reaped: its pid may be another's).
    public func send(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
/// module does not import (it is declared for `_GNU_SOURCE` only): bound by name once. ENOSYS
/// where the C library lacks it.
private let addCloseFrom: @Sendable (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
    typealias Function = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return { _, _ in ENOSYS }
    }
    let function = unsafeBitCast(symbol, to: Function.self)
    return { actions, from in function(actions, from) }
}()
