import FoundationEssentials

/// jq expressions, run by jq's own library (libjq 1.6) in a sandboxed worker process
/// (`JQWorkerMain`, `JQWorkers`), never in feedcli's own: a crash, a runaway or a memory hog of
/// one expression fails the feed it worked for and nothing else.
///
/// Threading: every call blocks its caller until the worker answers or `limits.timeout` passes;
/// calls from several threads run in several workers at once.
public enum JQ {
    /// What a worker may use: `--jq-memory` and the run's `--timeout`.
    public struct Limits: Sendable, Equatable {
        /// The worker's address space, in bytes (`RLIMIT_AS`); 0 for none.
        public var memory: Int
        public var timeout: Duration
        /// The most bytes a page's expressions may build, all items together (`--max-size`,
        /// as for a response).
        public var output: Int
        /// The feed's run's time left, shared by its pages; nil: each call may take `timeout`.
        public var budget: JQBudget?

        /// `--jq-memory`'s default: far above what the page bounds let jq hold (about 110 MiB),
        /// far below what hurts a machine.
        public static let defaultMemory = 512 << 20

        public init(
            memory: Int = Limits.defaultMemory, timeout: Duration = .seconds(30), output: Int = 16 << 20,
            budget: JQBudget? = nil
        ) {
            (self.memory, self.timeout, self.output, self.budget) = (memory, timeout, output, budget)
        }

        /// These limits with a budget of `timeout` for one feed's run, every page together.
        public func forOneRun() -> Limits {
            Limits(memory: memory, timeout: timeout, output: output, budget: JQBudget(timeout))
        }

        public static func == (lhs: Limits, rhs: Limits) -> Bool {
            lhs.memory == rhs.memory && lhs.timeout == rhs.timeout && lhs.output == rhs.output
                && lhs.budget === rhs.budget
        }
    }

    /// Checks that `expression` is allowed (`JQExpressionCheck`) and compiles; why not when it
    /// does not (`.refused`, `.compile`, or `.unavailable` when jq cannot be run).
    public static func check(_ expression: String, limits: Limits = Limits(timeout: .seconds(10))) throws(JQError) {
        if let builtin = JQExpressionCheck.refusedBuiltin(in: expression) { throw .refused(builtin: builtin) }
        do throws(JQWorkers.Failure) {
            switch try ask(.check(expression), limits: limits) {
            case .checked(nil): return
            case .checked(let message?): throw JQWorkers.Failure(error: .compile(message), progress: nil)
            default: throw JQWorkers.Failure(error: .crashed("it answered another question"), progress: nil)
            }
        } catch {
            throw error.error
        }
    }

    /// The expressions of `request` on its page; a failure says what the worker was working on.
    package static func map(_ request: JQMapRequest, limits: Limits) throws(JQWorkers.Failure) -> (
        items: JQOutcome, fields: [[JQOutcome]], page: [JQOutcome]
    ) {
        guard case .mapped(let items, let fields, let page) = try ask(.map(request), limits: limits),
            fields.count <= request.itemLimit, fields.allSatisfy({ $0.isEmpty || $0.count == request.fields.count }),
            page.count == request.pageExpressions.count
        else {
            throw JQWorkers.Failure(error: .crashed("it answered another question"), progress: nil)
        }
        return (items, fields, page)
    }

    /// Whether each of `items` (JSON texts) passes `expression`; an error names the item's
    /// position (0-based).
    package static func filter(_ expression: String, items: [String], limits: Limits) throws(JQWorkers.Failure)
        -> Result<[Bool], FilterFailure>
    {
        switch try ask(.filter(expression: expression, items: items), limits: limits) {
        case .filtered(let passes) where passes.count == items.count: return .success(passes)
        case .filterFailed(let position, let message) where items.indices.contains(position):
            return .failure(FilterFailure(position: position, message: message))
        default: throw JQWorkers.Failure(error: .crashed("it answered another question"), progress: nil)
        }
    }

    package struct FilterFailure: Error {
        package let position: Int
        package let message: String
    }

    /// Asks a worker, within the budget's time left when there is one (and says `--timeout` when
    /// that runs out, as it is the option's time that ran out).
    private static func ask(_ request: JQRequest, limits: Limits) throws(JQWorkers.Failure) -> JQReply {
        var timeout = limits.timeout
        if let budget = limits.budget {
            timeout = min(timeout, budget.timeLeft)
            guard timeout > .zero else { throw JQWorkers.Failure(error: .timedOut(limits.timeout), progress: nil) }
        }
        let started = ContinuousClock.now
        defer { limits.budget?.spend(started.duration(to: .now)) }
        let reply: JQReply
        do throws(JQWorkers.Failure) {
            reply = try JQWorkers.shared.ask(request, memory: limits.memory, timeout: timeout)
        } catch  where error.error == .timedOut(timeout) {
            throw JQWorkers.Failure(error: .timedOut(limits.timeout), progress: error.progress)
        }
        if case .unavailable(let message) = reply {
            throw JQWorkers.Failure(error: .unavailable(message), progress: nil)
        }
        return reply
    }
}
