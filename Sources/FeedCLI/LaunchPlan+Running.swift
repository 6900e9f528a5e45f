import ArgumentParser
import FeedCore
import FeedTerminal
import Glibc

extension LaunchPlan {
    /// Runs the plan with `invocation`'s environment and standard descriptors; the process's
    /// exit status. Help and `--version` are printed by the parser, which exits.
    func run(_ invocation: Invocation) -> Int32 {
        switch self {
        case .mistake(let message):
            try? invocation.diagnostics.write("feedcli: \(message)\n")
            return 64
        case .completionScript(let shell):
            do { try FileDescriptorSink.standardOutput.write(CompletionScripts.script(for: shell)) } catch { return 74 }
            return 0
        case .overview:
            return invocation.defaultContext(statePath: nil, fetches: false).printStatus(
                feeds: [], preamble: Feedcli.briefUsage)
        case .plainNext(let line):
            // What `Next` does with these options, without the parser's reflection.
            return Next.run(feed: line.feed, invocation.defaultContext(statePath: line.statePath, fetches: true))
        case .parse(let arguments):
            return Self.parsed(arguments, invocation)
        }
    }

    /// What ArgumentParser's `main()` does, with feedcli's contexts and its one style of usage
    /// error (`UsageErrorStyle`).
    private static func parsed(_ arguments: [String], _ invocation: Invocation) -> Int32 {
        do {
            var command = try Feedcli.parseAsRoot(arguments)
            if let command = command as? any FeedcliCommand {
                return command.execute(invocation.context(command.options))
            }
            try command.run()  // a group: its help
            return 0
        } catch {
            let code = SignalHandling.interrupted ? ExitCode(130) : Feedcli.exitCode(for: error)
            let message = Feedcli.fullMessage(for: error)
            // Help and version go to stdout as the parser prints them.
            guard code != .success, code.rawValue != 130, !message.isEmpty else {
                Feedcli.exit(withError: SignalHandling.interrupted ? ExitCode(130) : error)
            }
            try? invocation.diagnostics.write(UsageErrorStyle.styled(message) + "\n")
            return code.rawValue
        }
    }
}
