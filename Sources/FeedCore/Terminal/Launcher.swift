import CProcessSpawn
import FoundationEssentials
import Glibc

/// Starts the program that opens a web address for `feedcli open`, as other Unix tools read
/// `$BROWSER`: a colon-separated list of commands, tried in order until one starts; each is a
/// command line split into words (quotes group words, as a shell's would; no shell runs it), and
/// `%s` in it stands for the URL (`%%` for a `%`), else the URL is its last argument. Without
/// `$BROWSER`, `xdg-open`. The one that started is waited for.
package enum Launcher {
    /// The program that started and its exit status; nil status when none could be started
    /// (the program is then the last one tried).
    package static func open(_ url: String, environment: [String: String]) -> (program: String, status: Int32?) {
        let commands = (environment["BROWSER"] ?? "").split(separator: ":").map { words(in: String($0)) }.filter {
            !$0.isEmpty
        }
        var tried = "xdg-open"
        for command in commands.isEmpty ? [["xdg-open"]] : commands {
            let arguments = substituting(url, into: command)
            tried = arguments[0]
            if let pid = start(arguments, environment: environment) { return (tried, wait(for: pid)) }
        }
        return (tried, nil)
    }

    /// A command line's words: split at blanks, with '…' and "…" grouping (quotes removed) and a
    /// backslash taking the next character as it is.
    package static func words(in line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                word.append(character)
                escaped = false
            } else if character == "\\", quote != "'" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The command with `%s` replaced by the URL (and `%%` by `%`), or the URL appended when no
    /// word asks for it.
    package static func substituting(_ url: String, into command: [String]) -> [String] {
        var used = false
        let replaced = command.map { word -> String in
            guard word.contains("%") else { return word }
            var result = ""
            var rest = Substring(word)
            while let percent = rest.firstIndex(of: "%") {
                result += rest[..<percent]
                let next = rest.index(after: percent)
                if next < rest.endIndex, rest[next] == "s" {
                    result += url
                    used = true
                    rest = rest[rest.index(after: next)...]
                } else if next < rest.endIndex, rest[next] == "%" {
                    result += "%"
                    rest = rest[rest.index(after: next)...]
                } else {
                    result += "%"
                    rest = rest[next...]
                }
            }
            return result + rest
        }
        return used ? replaced : replaced + [url]
    }

    /// Starts `arguments` (the program found through `PATH`) with the signal dispositions a
    /// shell would give it, not feedcli's own (SIGINT and SIGTERM blocked, SIGPIPE ignored), and
    /// `stdin` as its standard input when given, in a process group of its own when `ownGroup`;
    /// its pid, or nil when it cannot start (errno then says why). It inherits no descriptor
    /// but 0, 1 and 2.
    package static func start(
        _ arguments: [String], environment: [String: String], stdin: Int32? = nil,
        ownGroup: Bool = false
    ) -> pid_t? {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        if ownGroup { posix_spawnattr_setpgroup(&attributes, 0) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, STDIN_FILENO)
            posix_spawn_file_actions_addclose(&actions, stdin)
        }
        // The program gets 0, 1 and 2 and nothing else of feedcli's: not a feed's connection,
        // not a socket of its own (a descriptor some library opened without close-on-exec).
        process_spawn_close_from(&actions, STDERR_FILENO + 1)
        var pid = pid_t()
        // ETXTBSY: a script written a moment ago can still be open for writing in a process
        // another thread forked meanwhile (the descriptor closes at its exec); retry briefly.
        var spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, env)
        for _ in 0..<20 where spawned == ETXTBSY {
            usleep(10_000)
            spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, env)
        }
        guard spawned == 0 else {
            errno = spawned
            return nil
        }
        return pid
    }

    /// Waits for `pid` to end; its exit status (128 + the signal for one killed by a signal).
    @discardableResult
    package static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let exited = (status & 0x7F) == 0
        return exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
