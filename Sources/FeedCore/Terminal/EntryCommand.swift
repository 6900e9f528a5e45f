import Dispatch
import FeedBase
import FoundationEssentials
import Glibc

/// The command of `--exec CMD`, run once for an entry: `/bin/sh -c CMD` with one line on its
/// stdin and variables added to feedcli's environment, waited for up to `timeout`.
///
/// The command runs in a process group of its own, so that a timeout ends it and whatever it
/// started (a `curl` inside a pipeline), and so that a Ctrl-C at the terminal reaches feedcli
/// alone: feedcli then waits for the command, which decides whether its entry is delivered.
/// Its stdout and stderr are feedcli's.
///
/// Threading: `run` blocks its caller until the command ends (it is called from the reactor's
/// work queue, never from a test's or the cooperative pool's thread); the line is written and
/// the command waited for on a global queue's thread, so a command that never reads its stdin
/// cannot block the timeout.
package struct EntryCommand: Sendable {
    /// The shell command line, as given on feedcli's command line.
    package let command: String
    package let timeout: Duration
    /// feedcli's environment, which the command inherits.
    package let environment: [String: String]

    package init(command: String, timeout: Duration, environment: [String: String]) {
        self.command = command
        self.timeout = timeout
        self.environment = environment
    }

    /// How a run ended.
    package enum Outcome: Sendable, Equatable {
        case exited(Int32)
        case killed(signal: Int32)
        case timedOut
        /// `/bin/sh` could not be started (the errno).
        case notStarted(Int32)

        package var succeeded: Bool { self == .exited(0) }
    }

    /// Runs the command with `line` on its stdin and `variables` added to its environment.
    package func run(line: [UInt8], variables: [String: String]) -> Outcome {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .notStarted(errno) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        // The command's stdin ends when feedcli closes the write end, so no other process may
        // hold it: close-on-exec at once (Glibc's Swift overlay has no `pipe2`). Between the two
        // calls no other thread starts a process: commands run one at a time (`ExecOutput`), jq
        // runs in this process, and the pager starts before anything is delivered.
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        let merged = environment.merging(variables) { _, added in added }
        guard let pid = Launcher.start(["/bin/sh", "-c", command], environment: merged, stdin: readEnd, ownGroup: true)
        else {
            let error = errno
            close(readEnd)
            close(writeEnd)
            return .notStarted(error)
        }
        close(readEnd)
        let ended = DispatchSemaphore(value: 0)
        let status = Locked(Int32(0))
        DispatchQueue.global().async {
            Self.writeAll(line, to: writeEnd)  // EPIPE (a command that reads nothing) is no failure
            close(writeEnd)
            let code = Launcher.wait(for: pid)
            status.withLock { $0 = code }
            ended.signal()
        }
        if ended.wait(timeout: .now() + .nanoseconds(Self.nanoseconds(timeout))) == .timedOut {
            kill(-pid, SIGKILL)  // the group: the shell and what it started
            ended.wait()
            return .timedOut
        }
        let code = status.withLock { $0 }
        return code > 128 ? .killed(signal: code - 128) : .exited(code)
    }

    /// Text for an environment variable: control characters (C0, DEL, C1) removed, so a value
    /// from a server cannot carry a newline or an escape sequence into a log or a terminal.
    package static func variableValue(_ text: String) -> String {
        var result = ""
        var bytes = 0
        for scalar in text.unicodeScalars where !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) {
            // Whole characters only, within the bound: the kernel refuses to start a program
            // one of whose environment strings is over 128 KiB (E2BIG), and a server's title
            // must never keep the command from starting (the whole entry is on its stdin).
            bytes += UTF8.width(scalar)
            guard bytes <= maxVariableBytes else { break }
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    /// The most bytes of a value in the command's environment (`FEEDCLI_TITLE` and the others).
    package static let maxVariableBytes = 4096

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let limit = Int64(Int.max / 1_000_000_000 - 1)
        return Int(min(seconds, limit)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
