import FeedModel
import FoundationEssentials

/// Where a run hands entries to the user: the reactor delivers a block of entries here and
/// commits only those reported delivered (contract: nothing unprinted is committed).
public protocol EntryOutput: Sendable {
    /// Writes `entries` (one feed's block, oldest first) and reports how many got out whole.
    func deliver(_ entries: [Entry]) -> DeliveryReport
    /// Runs `body`, in which this thread's deliveries form one block: no other thread's
    /// delivery comes in between (a feed delivered and committed in several batches).
    func exclusively<T>(_ body: () throws -> T) rethrows -> T
    /// Whether each entry takes the output a while (a command run for it): what it took is then
    /// committed as it goes, at least every `FeedReactor.commitInterval`, not once the whole
    /// batch went through it.
    var takesTimePerEntry: Bool { get }
}

extension EntryOutput {
    public func exclusively<T>(_ body: () throws -> T) rethrows -> T { try body() }
    public var takesTimePerEntry: Bool { false }
}

/// How a delivery went: the first `delivered` entries were written completely; the rest were not.
public struct DeliveryReport: Sendable, Equatable {
    public enum Failure: Sendable, Equatable {
        /// The output could not take them (disk full, descriptor closed, reader gone).
        case output(OutputError)
        /// The user interrupted (Ctrl-C, SIGTERM) before they were written.
        case interrupted
        /// The output took the entries before this one and refused this one (an `--exec`
        /// command that failed, with what it did): only this feed's delivery stops.
        case refused(String)
    }

    public var delivered: Int
    public var failure: Failure?

    public init(delivered: Int, failure: Failure? = nil) {
        self.delivered = delivered
        self.failure = failure
    }
}
