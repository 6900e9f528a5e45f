import Foundation

extension Feedcli {
    /// Runs feedcli with `arguments` on a pseudo-terminal of `rows` × `columns`, with `pager`
    /// as `$PAGER` and `environment` added (the test's own `PAGER` and `NO_COLOR` are not
    /// passed on); what the terminal showed, its line ends as `\n`.
    public static func onTerminal(
        _ arguments: [String], rows: Int = 24, columns: Int = 80, pager: String? = nil,
        environment: [String: String] = [:]
    ) async throws -> String {
        let script = """
            import fcntl, os, pty, struct, sys, termios
            rows, cols, pager = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
            env = dict(os.environ)
            env.pop("PAGER", None)
            if pager != "-": env["PAGER"] = pager
            pid, fd = pty.fork()
            if pid == 0:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                os.execve(sys.argv[4], sys.argv[4:], env)
            out = b""
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk: break
                out += chunk
            os.waitpid(pid, 0)
            sys.stdout.write(out.decode("utf-8", "replace").replace("\\r\\n", "\\n"))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, String(rows), String(columns), pager ?? "-", binary] + arguments
        var inherited = ProcessInfo.processInfo.environment
        inherited["NO_COLOR"] = nil
        process.environment = inherited.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        let data = try await process.runToExit()
        return String(decoding: data, as: UTF8.self)
    }
}
