import CWorkerSandbox
import FoundationEssentials
import Glibc
import Synchronization

/// The jq workers of this process (`JQWorkerMain` says what one is): started on first need, one
/// per request in flight, kept idle between requests for reuse, and ended when one crashes, runs
/// out of memory or past its deadline. A caller never waits for another caller's worker, so a
/// runaway expression of one feed holds up no other feed.
///
/// Threading: `ask` blocks its caller until the reply or the deadline; it may be called from any
/// number of threads at once (each gets a worker of its own). Idle workers are kept under a
/// lock; a checked-out worker belongs to its caller alone.
package final class JQWorkers: Sendable {
    package static let shared = JQWorkers()

    /// Set by `JQWorkerMain.serveIfAsked`: this program can be its own worker.
    package static let selfCanServe = Atomic<Bool>(false)

    private let idle = Mutex<[JQWorkerProcess]>([])
    /// How many idle workers are kept (more are ended when returned).
    private static let idleLimit = 16

    /// Why a worker gave no reply, and what it was working on when it stopped.
    package struct Failure: Error {
        package let error: JQError
        package let progress: JQProgress?

        package init(error: JQError, progress: JQProgress?) {
            self.error = error
            self.progress = progress
        }
    }

    /// The reply to `request`, from a worker with `memory` bytes (0: unbounded), waiting at most
    /// `timeout`. A worker kept idle that fails the exchange is replaced and the request asked
    /// once more of a new one: an idle worker may have been ended from outside meanwhile, and
    /// a page is never failed for what happened to a worker while it waited.
    package func ask(_ request: JQRequest, memory: Int, timeout: Duration) throws(Failure) -> JQReply {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let frame = JQWire.encode(request)
        var reused: Bool
        var worker: JQWorkerProcess
        do {
            (worker, reused) = try checkOut(memory: memory)
        } catch {
            throw Failure(error: error, progress: nil)
        }
        var reply: [UInt8] = []
        while true {
            do {
                try JQSocket.writeFrame(frame, to: worker.socket, deadline: deadline)
                reply = try JQSocket.readFrame(worker.socket, deadline: deadline)
                break
            } catch {
                let failure = worker.end(after: error, timeout: timeout)
                guard reused, error != .timedOut else { throw failure }
                do {
                    worker = try Self.start(memory: memory)
                    reused = false
                } catch {
                    throw Failure(error: error, progress: nil)
                }
            }
        }
        guard let decoded = try? JQWire.reply(from: reply) else {
            let ended = worker.end(after: .malformed, timeout: timeout)
            throw Failure(error: .crashed("it sent a reply feedcli cannot read"), progress: ended.progress)
        }
        checkIn(worker)
        return decoded
    }

    /// An idle worker with `memory` that is still alive (true), or a new one (false). A dead
    /// idle worker is reaped and never handed on.
    private func checkOut(memory: Int) throws(JQError) -> (JQWorkerProcess, Bool) {
        while let found = idle.withLock({ workers -> JQWorkerProcess? in
            guard let index = workers.lastIndex(where: { $0.memory == memory }) else { return nil }
            return workers.remove(at: index)
        }) {
            if !found.reapIfEnded() { return (found, true) }
        }
        return (try Self.start(memory: memory), false)
    }

    /// A new worker, started from the spawner's thread (`JQWorkerSpawner` says why).
    private static func start(memory: Int) throws(JQError) -> JQWorkerProcess {
        let executable = try executable()
        return try JQWorkerSpawner.shared.run { () -> Result<JQWorkerProcess, JQError> in
            Result { () throws(JQError) -> JQWorkerProcess in
                try JQWorkerProcess.start(executable: executable, memory: memory)
            }
        }.get()
    }

    private func checkIn(_ worker: JQWorkerProcess) {
        let kept = idle.withLock { workers in
            guard workers.count < Self.idleLimit else { return false }
            workers.append(worker)
            return true
        }
        if !kept { worker.close() }
    }

    /// The program a worker runs: this one when it serves as a worker (feedcli), else the
    /// `feedcli` beside this program (the test runner, built in the same folder).
    package static func executable() throws(JQError) -> String {
        if selfCanServe.load(ordering: .acquiring) { return "/proc/self/exe" }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let beside =
            own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/feedcli"
        guard access(beside, X_OK) == 0 else {
            throw .unavailable("feedcli's jq worker cannot be found (no \(beside))")
        }
        return beside
    }
}

/// One worker process, feedcli's end of its socket, and the progress integers it shares.
///
/// Sendable: it moves between the pool's lock and the one caller that checked it out; only that
/// caller uses it. The progress pointer (`nonisolated(unsafe)`) is read only after the worker has
/// ended and been waited for, so nothing writes it while it is read; it is unmapped once, by the
/// caller that ends the worker.
package final class JQWorkerProcess: Sendable {
    package let pid: pid_t
    package let socket: Int32
    package let memory: Int
    nonisolated(unsafe) private let progress: UnsafeMutablePointer<Int32>?

    private init(pid: pid_t, socket: Int32, memory: Int, progress: UnsafeMutablePointer<Int32>?) {
        (self.pid, self.socket, self.memory, self.progress) = (pid, socket, memory, progress)
    }

    /// Starts `executable` as a worker (`JQWorkerMain`): no environment, its socket as stdin and
    /// stdout, `/dev/null` as stderr, default signal dispositions, a process group of its own.
    package static func start(executable: String, memory: Int) throws(JQError) -> JQWorkerProcess {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .unavailable("feedcli cannot start its jq worker: \(String(cString: strerror(errno)))")
        }
        let (own, theirs) = (ends[0], ends[1])
        defer { Glibc.close(theirs) }
        // Without the progress memfd a worker still works; a crash then names no option.
        let progressFile = sandbox_progress_create()
        defer { if progressFile >= 0 { Glibc.close(progressFile) } }
        let progress = progressFile >= 0 ? sandbox_progress_map(progressFile) : nil
        let arguments = [JQWorkerMain.programName, String(getpid()), String(memory)]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment: [UnsafeMutablePointer<CChar>?] = [nil]
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, theirs, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, theirs, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        if progressFile >= 0 { posix_spawn_file_actions_adddup2(&actions, progressFile, 3) }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environment)
        guard spawned == 0 else {
            Glibc.close(own)
            sandbox_progress_unmap(progress)
            throw .unavailable(
                "feedcli cannot start its jq worker (\(executable)): \(String(cString: strerror(spawned)))")
        }
        return JQWorkerProcess(pid: pid, socket: own, memory: memory, progress: progress)
    }

    /// Ends the worker after `failure` of an exchange with it, and says what became of it and
    /// what it was working on.
    package func end(after failure: JQSocket.Failure, timeout: Duration) -> JQWorkers.Failure {
        if failure == .timedOut || failure == .malformed { kill(pid, SIGKILL) }
        Glibc.close(socket)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let working = JQProgress(stage: sandbox_progress_get(progress, 0), item: sandbox_progress_get(progress, 1))
        sandbox_progress_unmap(progress)
        return JQWorkers.Failure(error: error(status: status, after: failure, timeout: timeout), progress: working)
    }

    private func error(status: Int32, after failure: JQSocket.Failure, timeout: Duration) -> JQError {
        if failure == .timedOut { return .timedOut(timeout) }
        let signal = status & 0x7F
        if signal != 0 { return .crashed(Self.name(ofSignal: signal)) }
        let code = (status >> 8) & 0xFF
        if code == JQWorkerMain.outOfMemoryStatus { return .outOfMemory(limit: memory) }
        if code == JQWorkerMain.setUpFailedStatus {
            return .unavailable("feedcli's jq worker could not set up its sandbox")
        }
        return .crashed("its worker ended with status \(code)")
    }

    /// Whether the worker has ended on its own (killed from outside while idle): then it is
    /// reaped and its socket closed; else nothing changes.
    package func reapIfEnded() -> Bool {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return false }
        Glibc.close(socket)
        sandbox_progress_unmap(progress)
        return true
    }

    /// Ends an idle worker: it reads the end of its socket and exits.
    package func close() {
        Glibc.close(socket)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        sandbox_progress_unmap(progress)
    }

    private static func name(ofSignal signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGABRT: "SIGABRT", SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL",
            SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTRAP: "SIGTRAP", SIGXCPU: "SIGXCPU",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
