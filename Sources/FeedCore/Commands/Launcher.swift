
/// Starts the program that opens a web address for `feedcli open`: the first of `$BROWSER`'s
/// colon-separated commands, else `xdg-open`, found through `PATH`, given the URL as its one
/// argument (never through a shell), and waited for.
enum Launcher {
    /// The program's exit status; nil when it could not be started at all.
    static func open(_ url: String, environment: [String: String]) -> (program: String, status: Int32?) {
        let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init)
            .flatMap { $0.trimmingWhitespace().isEmpty ? nil : $0 }
        let program = browser ?? "xdg-open"
        var pid = pid_t()
        let arguments = [program, url]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        // The browser gets the signal dispositions a shell would give it, not feedcli's own
        // (SIGINT and SIGTERM blocked, SIGPIPE ignored).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        guard posix_spawnp(&pid, program, nil, &attributes, argv, env) == 0 else { return (program, nil) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let exited = (status & 0x7F) == 0
        return (program, exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
    }
}
