import CProcessMemory
import FeedCore
import FeedJQ
import FeedTerminal
import FoundationEssentials
import Glibc

/// The executable: a jq worker when started as one; else the signals and standard descriptors
/// claimed, the command line read once (`LaunchPlan`) and run, its status the exit status.
@main
enum FeedCLI {
    static func main() {
        // An allocation of 4 MiB or more (a huge message, its entry, its row) is mapped on its
        // own and given back when freed. glibc's default threshold rises with each such free,
        // after which the next ones come from arenas that keep what they held: huge messages one
        // after another would hold memory no longer used (the WebSocket memory bound).
        _ = process_memory_map_from(4 << 20)
        // Started again as its own jq worker, feedcli serves jq expressions and exits here.
        JQWorkerMain.serveIfAsked()
        SignalHandling.hold()
        FileDescriptorSink.claimStandardDescriptors()
        let plan = LaunchPlan(Array(CommandLine.arguments.dropFirst()))
        SignalHandling.install()
        // A database store the line names: its connection begun now, beside the rest of the start.
        let ahead = Invocation.beginConnection(toStoreAt: plan.namedStore)
        let invocation = Invocation(
            environment: ProcessInfo.processInfo.environment, standardOutput: .standardOutput,
            standardError: .standardError, interruption: SignalHandling.interruption, connectionAhead: ahead)
        let status = plan.run(invocation)
        exit(SignalHandling.interrupted ? 130 : status)
    }
}
