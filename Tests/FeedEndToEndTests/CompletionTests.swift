import FeedStoreTesting
import FeedTesting
import Foundation
import Testing

/// Every FEED argument completes feed names in the shells' own completion machinery: the
/// scripts feedcli generates are loaded into a real bash and zsh, and a Tab is
/// pressed. Before, `feedcli feeds rm <TAB>` offered subcommand names: ArgumentParser's scripts
/// know no aliases, so `rm` is now a command of its own.
@Suite("Shell completion of feed names", .serialized, .timeLimit(.minutes(2)))
struct CompletionTests {
    /// A folder holding `feedcli` (the built binary), the scripts, and a store with two feeds.
    final class Setup {
        let folder = temporaryStorePath("completion")
        var state: String { folder + "/feeds.sqlite" }

        init() async throws {
            try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/bin/feedcli", withDestinationPath: Feedcli.binary)
            for name in ["alpha", "beta"] {
                let added = try await Feedcli.run([
                    "feeds", "add", name, "http://127.0.0.1:9/" + name, "--kind", "indexed", "--state", state,
                ])
                #expect(added.status == 0, "\(added.stderr)")
            }
            for shell in ["bash", "zsh", "fish"] {
                let script = try await Feedcli.run(["--generate-completion-script", shell])
                try FileManager.default.createDirectory(atPath: folder + "/" + shell, withIntermediateDirectories: true)
                try script.stdout.write(toFile: folder + "/\(shell)/_feedcli", atomically: true, encoding: .utf8)
            }
        }

        var environment: [String: String] {
            [
                "PATH": folder + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                "FEEDCLI_STATE": state,
            ]
        }
    }

    /// The command lines whose last word is a feed, as typed before the Tab.
    static let lines: [[String]] = [
        ["next"], ["next", "--all", "alpha"], ["list"], ["sync"], ["sync", "alpha"], ["show", "1", "--feed"],
        ["read", "1", "--feed"], ["unread", "1", "--feed"], ["open", "1", "--feed"], ["export"], ["status"],
        ["feeds", "set"], ["feeds", "remove"], ["feeds", "rm"], ["read", "--all"],
    ]

    static func installed(_ shell: String) -> Bool {
        ["/bin/", "/usr/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + shell) }
    }

    /// Types `typed` into an interactive `shell` (a pseudo-terminal, as a person's Tab) after
    /// `setup`, in `folder`, and returns what the shell drew, once `expected` shows or after 8 s.
    private func screen(
        _ shell: [String], setup: String, typed: String, expected: String, in folder: String,
        environment: [String: String]
    ) async throws -> String {
        let driver = #"""
            import os, pty, select, sys, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execvp(sys.argv[1], sys.argv[1:])
            def read(seconds, until=None):
                out, end = b"", time.time() + seconds
                while time.time() < end:
                    if select.select([fd], [], [], 0.1)[0]:
                        try: chunk = os.read(fd, 4096)
                        except OSError: break
                        out += chunk
                        if until and until.encode() in out: break
                return out
            read(1.5)
            os.write(fd, os.environ["SETUP"].encode() + b"\n")
            read(2.0)
            os.write(fd, os.environ["TYPED"].encode())
            sys.stdout.write(read(8.0, os.environ["EXPECTED"]).decode(errors="replace"))
            os.kill(pid, 9)
            """#
        let settings = environment.merging([
            "SETUP": setup, "TYPED": typed, "EXPECTED": expected, "PWD": folder, "TERM": "xterm",
        ]) { $1 }
        return try await run(
            "sh", ["-c", #"cd "$PWD" && exec python3 -c "$DRIVER" "$@""#, "sh"] + shell,
            environment: settings.merging(["DRIVER": driver]) { $1 })
    }

    /// bash completes with `-o filenames`, which made a feed name that is also a folder in the
    /// current directory `alpha/`; fish's script asked feedcli without the
    /// cursor's place and got nothing. Both are driven as a person would, Tab in a terminal.
    @Test(.enabled(if: installed("bash") && installed("fish"))) func aTabInBashAndFishOffersFeedNamesAsTheyAre()
        async throws
    {
        let setup = try await Setup()
        try FileManager.default.createDirectory(atPath: setup.folder + "/alpha", withIntermediateDirectories: true)
        let bash = try await screen(
            ["bash", "--norc", "-i"], setup: "source '\(setup.folder)/bash/_feedcli'", typed: "feedcli next \t\t",
            expected: "beta", in: setup.folder, environment: setup.environment)
        #expect(bash.contains("alpha") && bash.contains("beta") && !bash.contains("alpha/"), "bash: \(bash)")
        let fish = try await screen(
            ["fish", "--no-config", "-i"], setup: "source '\(setup.folder)/fish/_feedcli'", typed: "feedcli next \t",
            expected: "beta", in: setup.folder, environment: setup.environment)
        #expect(fish.contains("alpha") && fish.contains("beta"), "fish: \(fish)")
        let read = try await run(
            "bash",
            [
                "--norc", "-c",
                """
                source '\(setup.folder)/bash/_feedcli'
                COMP_WORDS=(feedcli read ''); COMP_CWORD=2; COMP_LINE="feedcli read "; COMP_POINT=${#COMP_LINE}
                _feedcli feedcli '' read
                printf '%s\\n' "${COMPREPLY[@]}"
                """,
            ], environment: setup.environment)
        #expect(!read.contains("alpha"), "read without --all takes entries, not feeds: \(read)")
        // `help <TAB>` offers the commands (it offered nothing).
        let help = try await run(
            "bash",
            [
                "--norc", "-c",
                """
                source '\(setup.folder)/bash/_feedcli'
                COMP_WORDS=(feedcli help ''); COMP_CWORD=2; COMP_LINE="feedcli help "; COMP_POINT=${#COMP_LINE}
                _feedcli feedcli '' help
                printf '%s\\n' "${COMPREPLY[@]}"
                """,
            ], environment: setup.environment)
        #expect(help.split(separator: "\n").contains("sync") && help.contains("export"), "bash: help <TAB>: \(help)")
        let fishHelp = try await screen(
            ["fish", "--no-config", "-i"], setup: "source '\(setup.folder)/fish/_feedcli'", typed: "feedcli help \t",
            expected: "export", in: setup.folder, environment: setup.environment)
        #expect(fishHelp.contains("sync") && fishHelp.contains("export"), "fish: help <TAB>: \(fishHelp)")
    }

    /// What `executable` prints, run to its end on a thread of its own.
    private func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws -> String
    {
        try await onOwnThread { try Self.runBlocking(executable, arguments, environment: environment) }
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]) throws
        -> String
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        // Only what the shell needs and the test sets: never the user's own HOME, rc files or store.
        process.environment = ["HOME": TestScratch.folder("home").path, "LANG": "C.UTF-8", "TERM": "dumb"].merging(
            environment
        ) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test(.enabled(if: installed("bash"))) func bashCompletesFeedNamesForEveryFeedArgument() async throws {
        let setup = try await Setup()
        for line in Self.lines {
            let words = (["feedcli"] + line + [""]).map { "'\($0)'" }.joined(separator: " ")
            let script = """
                source '\(setup.folder)/bash/_feedcli'
                COMP_WORDS=(\(words)); COMP_CWORD=\(line.count + 1)
                COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                _feedcli feedcli '' '\(line.last ?? "")'
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let offered = try await run("bash", ["--norc", "-c", script], environment: setup.environment).split(
                separator: "\n")
            #expect(
                offered.contains("alpha") && offered.contains("beta"),
                "feedcli \(line.joined(separator: " ")) <TAB>: \(offered)")
            #expect(!offered.contains("add"), "no subcommand names")
        }
    }

    /// zsh completes only in an interactive line editor: the test drives one through `zpty`.
    @Test(.enabled(if: installed("zsh"))) func zshCompletesFeedNamesForFeedsRmAndOthers() async throws {
        let setup = try await Setup()
        for line in [["feeds", "rm"], ["next"], ["show", "1", "--feed"]] {
            let typed = "feedcli " + line.joined(separator: " ") + " "
            let script = """
                zmodload zsh/zpty
                zpty z zsh -f -i
                zpty -w z "PROMPT='> '; fpath=('\(setup.folder)/zsh' \\$fpath); autoload -Uz compinit; compinit -u -D"
                # Waits for the prompt the set-up line ends with (zsh is ready), not for a time.
                ready=""
                for i in {1..150}; do
                    while zpty -r -t z chunk; do ready+=$chunk; done
                    [[ $ready == *"> "* ]] && break
                    sleep 0.1
                done
                zpty -w -n z $'\(typed)\\t'
                out=""
                # Reads what the line editor draws until both names show, for at most 15 s.
                for i in {1..75}; do
                    while zpty -r -t z chunk; do out+=$chunk; done
                    [[ $out == *alpha*beta* ]] && break
                    sleep 0.2
                done
                print -r -- "$out"
                zpty -d z
                """
            let screen = try await run("zsh", ["-f", "-c", script], environment: setup.environment)
            #expect(screen.contains("alpha") && screen.contains("beta"), "\(typed)<TAB>: \(screen)")
        }
    }

    /// fish's `complete -C` cannot run ArgumentParser's fish script outside an interactive line
    /// (fish 3.6's `commandline -C` is empty there), so this checks the script's wiring: every
    /// feed position asks feedcli for names, `feeds rm` included; bash and zsh run it for real.
    @Test(.enabled(if: installed("fish"))) func fishAsksForFeedNamesAtEveryFeedPosition() async throws {
        let setup = try await Setup()
        let script = try String(contentsOfFile: setup.folder + "/fish/_feedcli", encoding: .utf8)
        for command in ["next", "list", "sync", "export", "status", "feeds set", "feeds remove", "feeds rm"] {
            #expect(
                script.contains(#""feedcli \#(command)" -"#)
                    && script.contains("---completion \(command) -- positional@0"),
                "fish: \(command)")
        }
        #expect(
            try await run(
                "fish", ["--no-config", "-n", setup.folder + "/fish/_feedcli"], environment: setup.environment
            ).isEmpty,
            "the script parses")
    }
}
