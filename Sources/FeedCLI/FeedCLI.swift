import ArgumentParser
import FeedCore
import FeedJQ
import FeedTerminal
import FoundationEssentials
import Glibc

/// The executable: a jq worker when started as one, else the signals and standard descriptors
/// claimed, one look at the command line (`CommandLinePreparse`), and the command it names run
/// with its context, its status the process's exit status.
@main
enum FeedCLI {
    static func main() {
        // Started again as its own jq worker, feedcli serves jq expressions and exits here.
        JQWorkerMain.serveIfAsked()
        SignalHandling.hold()
        FileDescriptorSink.claimStandardDescriptors()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let environment = ProcessInfo.processInfo.environment
        let preparse = CommandLinePreparse(arguments, environment: environment)
        if let mistake = preparse.mistake {
            try? FileDescriptorSink.standardError.write("feedcli: \(mistake)\n")
            exit(64)
        }
        if let shell = preparse.completionScript {
            do { try FileDescriptorSink.standardOutput.write(CompletionScripts.script(for: shell)) } catch { exit(74) }
            exit(0)
        }
        // A command that fetches has its store opened and curl set up on the other core while
        // its arguments are parsed (start-up is most of what a `next` costs).
        let launch = LaunchPreparation.start(storeGuess: preparse.storeGuess, preparesCurl: preparse.preparesCurl)
        SignalHandling.install()
        let invocation = Invocation(
            environment: environment, standardOutput: .standardOutput, standardError: .standardError,
            interruption: SignalHandling.interruption, launch: launch)
        // What ArgumentParser's `main()` does, plus the wait for that set-up before any exit.
        let status: Int32
        do {
            if arguments.isEmpty {
                // Bare `feedcli`: a short usage, then the overview of the feeds (`status`).
                status = invocation.defaultContext(statePath: nil, fetches: false)
                    .printStatus(feeds: [], preamble: Feedcli.briefUsage)
            } else if let line = preparse.plainNext {
                // What `Next` does with these options, without ArgumentParser's reflection.
                status = Next.run(feed: line.feed, invocation.defaultContext(statePath: line.statePath, fetches: true))
            } else {
                var command = try Feedcli.parseAsRoot(preparse.arguments)
                if let command = command as? any FeedcliCommand {
                    status = command.execute(invocation.context(command.options))
                } else {
                    try command.run()  // a group: its help
                    status = 0
                }
            }
        } catch {
            launch.finish()
            let code = SignalHandling.interrupted ? ExitCode(130) : Feedcli.exitCode(for: error)
            let message = Feedcli.fullMessage(for: error)
            // Help and version go to stdout as the parser prints them; a usage error is said in
            // feedcli's one style (`UsageErrorStyle`).
            guard code != .success, code.rawValue != 130, !message.isEmpty else {
                Feedcli.exit(withError: SignalHandling.interrupted ? ExitCode(130) : error)
            }
            try? FileDescriptorSink.standardError.write(UsageErrorStyle.styled(message) + "\n")
            exit(code.rawValue)
        }
        launch.finish()
        exit(SignalHandling.interrupted ? 130 : status)
    }
}
