
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
        guard posix_spawnp(&pid, program, nil, nil, argv, env) == 0 else { return (program, nil) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let exited = (status & 0x7F) == 0
        return (program, exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
    }
}
