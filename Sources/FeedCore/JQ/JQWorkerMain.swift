import CJQ
import CWorkerSandbox
import FeedModel
import FoundationEssentials
import Glibc

/// The jq worker: feedcli itself, started again by `JQWorkers` under the program name
/// `feedcli-jq-worker`, which runs every jq expression outside feedcli's own process.
///
/// Why a process: jq 1.6 (Debian 12's libjq) aborts or segfaults on some expressions and inputs
/// (`todate` of 1e17, `[inputs]`, deep recursion), cannot be interrupted, and exposes the
/// environment (`$ENV`, `env`) and files (`import`, `include`) to whoever wrote the expression:
/// a preset, the user, or an OPML file from someone else. In a process of its own, a crash, a
/// runaway or a memory hog ends that process only, and the sandbox below leaves an expression
/// nothing to read.
///
/// Why feedcli itself and not a helper beside it: one binary to install, always of the same
/// version as the program that asks, and nothing to find on `PATH`.
///
/// The sandbox, set up before any request is read:
/// - an empty environment (the parent passes none): `$ENV` and `env` are `{}`, and `TZ` unset;
/// - every descriptor but the socket (0, 1) and `/dev/null` (2) closed (3, the `JQProgress`
///   memfd, once mapped), and `RLIMIT_NOFILE` set to 3, so no file, socket or pipe can be opened
///   (jq's `stderr` and `debug` output goes nowhere);
/// - `RLIMIT_AS` at `--jq-memory`; out of memory is exit status 3, not jq's abort;
/// - `RLIMIT_CORE` 0 (no core file from a crash), SIGKILL when feedcli dies, its own process
///   group (a Ctrl-C at the terminal is feedcli's to handle), and `/` as its directory;
/// - last, `sandbox_confine`: no new privileges, no capabilities (feedcli run as root gave its
///   worker all of them), and a seccomp filter letting through only memory, I/O on the
///   descriptors it has, the clock and exit; anything else fails with EPERM.
/// Expressions that read input or files (`JQExpressionCheck`) are refused before they reach jq.
///
/// Threading: the worker is one thread; every libjq call (`JQSession`) happens on it.
public enum JQWorkerMain {
    /// The name (`argv[0]`) a worker is started under.
    public static let programName = "feedcli-jq-worker"
    /// The exit status of a worker that ran out of memory.
    package static let outOfMemoryStatus: Int32 = 3
    /// The exit status of a worker that could not set up its sandbox, or read a request.
    package static let setUpFailedStatus: Int32 = 4

    /// Serves as a jq worker, and exits, when this process was started as one; otherwise
    /// returns at once and notes that this program can be its own worker (`JQWorkers` then
    /// starts workers from `/proc/self/exe`). Call it first thing in `main`.
    public static func serveIfAsked() {
        let arguments = CommandLine.arguments
        guard arguments.first == programName, arguments.count == 3,
            let parent = pid_t(arguments[1]), let memory = Int(arguments[2])
        else {
            JQWorkers.selfCanServe.store(true, ordering: .releasing)
            return
        }
        guard sandbox_die_with_parent(parent) == 0 else { _exit(setUpFailedStatus) }
        // Descriptor 3 is the progress memfd (`JQProgress`); everything past it is closed.
        sandbox_close_from(4)
        let progress = JQProgressWriter(shared: sandbox_progress_map(3))
        cjq_progress_follow_stages(progress.shared)
        Glibc.close(3)
        guard enterSandbox(memory: memory) else { _exit(setUpFailedStatus) }
        serve(progress: progress)
        _exit(0)
    }

    private static func enterSandbox(memory: Int) -> Bool {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        if memory > 0 {
            var limit = rlimit(rlim_cur: rlim_t(memory), rlim_max: rlim_t(memory))
            guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else { return false }
        }
        guard chdir("/") == 0 else { return false }
        // libjq is loaded (it opens files) before the descriptor limit and the filter shut
        // every open; without it each request says jq is missing.
        if cjq_load() == nil { cjq_on_out_of_memory { _ in _exit(JQWorkerMain.outOfMemoryStatus) } }
        var three = rlimit(rlim_cur: 3, rlim_max: 3)
        guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &three) == 0 else { return false }
        return sandbox_confine() == 0
    }

    /// Reads requests from descriptor 0 and answers on 1 until the parent closes the socket.
    private static func serve(progress: JQProgressWriter) {
        var session = JQSession()
        while let frame = JQSocket.readFrame(STDIN_FILENO) {
            guard let request = try? JQWire.request(from: frame) else { _exit(setUpFailedStatus) }
            let reply: JQReply
            if let failure = cjq_load() {
                reply = .unavailable(String(cString: failure))
            } else {
                reply = answer(request, session: &session, progress: progress)
            }
            guard JQSocket.writeFrame(JQWire.encode(reply), to: STDOUT_FILENO) else { return }
            session.forgetProgramsBeyond(64)
        }
    }

    package static func answer(_ request: JQRequest, session: inout JQSession, progress: JQProgressWriter) -> JQReply {
        switch request {
        case .check(let expression):
            progress.set(JQProgress(.reading))
            do {
                _ = try session.program(expression)
                return .checked(nil)
            } catch {
                return .checked(error.description)
            }
        case .map(let map):
            return mapped(map, session: &session, progress: progress)
        case .filter(let expression, let items):
            var passes: [Bool] = []
            passes.reserveCapacity(items.count)
            for (position, item) in items.enumerated() {
                progress.set(JQProgress(.filter, item: position))
                do {
                    let value = try session.value(item)
                    let first = try session.outputs(of: expression, on: value, limit: 1).texts.first
                    passes.append(first != nil && first != "false" && first != "null")
                } catch {
                    return .filterFailed(position: position, message: error.description)
                }
            }
            return .filtered(passes)
        }
    }

    private static func mapped(_ map: JQMapRequest, session: inout JQSession, progress: JQProgressWriter) -> JQReply {
        progress.set(JQProgress(.reading))
        let root: JQValue
        do {
            root = try session.value(map.page)
        } catch {
            return .mapped(items: .failed(error.description), fields: [], page: [])
        }
        // The page's program: `--items`, then the page expressions.
        let pageLimits =
            [JQOutcomeProgram.Limit(paths: map.itemLimit, values: map.builtItemLimit)]
            + map.pageExpressions.map { _ in JQOutcomeProgram.Limit.one }
        let pageStages =
            [JQProgress.Stage.items] + map.pageExpressions.indices.map { JQProgress.Stage.pageExpression($0) }
        progress.set(JQProgress(.items))
        let onPage = run(
            JQOutcomeProgram.program([map.items] + map.pageExpressions, limits: pageLimits, stages: pageStages),
            on: root, limits: pageLimits, session: &session)
        let items = onPage[0]
        var itemValues: [JQValue?] = []
        switch items {
        case .paths(let paths, _): itemValues = paths.map { try? session.value(at: $0, in: root) }
        case .values(let texts, _): itemValues = texts.map { try? session.value($0) }
        case .failed: break
        }
        // The items' program: every field expression, run on each item that is an object.
        let fieldLimits = map.fields.map { _ in JQOutcomeProgram.Limit.one }
        let fieldProgram = JQOutcomeProgram.program(
            map.fields, limits: fieldLimits,
            stages: map.fields.indices.map { JQProgress.Stage.field($0) })
        var fields: [[JQOutcome]] = []
        fields.reserveCapacity(itemValues.count)
        for (position, item) in itemValues.enumerated() {
            guard let item, item.isObject, !map.fields.isEmpty else {
                fields.append([])
                continue
            }
            progress.set(JQProgress(.field(0), item: position))
            fields.append(run(fieldProgram, on: item, limits: fieldLimits, session: &session))
        }
        return .mapped(items: items, fields: fields, page: Array(onPage.dropFirst()))
    }

    /// The outcomes of `program` (a `JQOutcomeProgram`) on `value`; each one the failure when the
    /// program as a whole fails.
    private static func run(
        _ program: String, on value: JQValue, limits: [JQOutcomeProgram.Limit], session: inout JQSession
    ) -> [JQOutcome] {
        do {
            let outputs = try session.outputs(of: program, on: value, limit: 1)
            if let text = outputs.texts.first, let outcomes = JQOutcomeProgram.outcomes(text, limits: limits) {
                return outcomes
            }
            return limits.map { _ in .failed("jq gave no answer feedcli can read") }
        } catch {
            return limits.map { _ in .failed(error.description) }
        }
    }
}

/// A jq path (`["data","children",0]`) as steps feedcli follows in its own parse of a page.
package enum JQPath {
    package enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    /// The steps of a path's JSON text; nil when it has a step feedcli does not follow (a slice,
    /// a fractional index).
    package static func steps(_ text: String) -> [Step]? {
        guard let steps = (try? JSONParser.parse(text))?.array else { return nil }
        var result: [Step] = []
        result.reserveCapacity(steps.count)
        for step in steps {
            switch step {
            case .string(let key): result.append(.key(key))
            case .inexactString(let key): result.append(.key(key.decoded))
            case .number(let digits):
                guard let index = Int(digits) else { return nil }
                result.append(.index(index))
            default: return nil
            }
        }
        return result
    }

    /// The value at `steps` in `node` (null past its end, as jq's `getpath`); nil when a step
    /// does not fit the value (a key of an array).
    package static func value(at steps: [Step], in node: JSON) -> JSON? {
        var current = node
        for step in steps {
            switch (step, current) {
            case (.key(let key), .object(let object)): current = object[key] ?? .null
            case (_, .null): current = .null
            case (.index(let index), .array(let elements)):
                let position = index < 0 ? elements.count + index : index
                current = elements.indices.contains(position) ? elements[position] : .null
            default: return nil
            }
        }
        return current
    }
}
