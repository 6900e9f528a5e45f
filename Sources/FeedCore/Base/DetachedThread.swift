import FoundationEssentials
import Glibc

/// A plain detached pthread, for work that lives on a thread of its own and blocks (curl's worker
/// loop, a WebSocket connection, the journal's checkpoints, signal waits), so that it never holds
/// one of Dispatch's pool threads that the command's own queues need. Full Foundation's `Thread`
/// is not linked.
package enum DetachedThread {
    /// Starts a detached thread named `name` (for debuggers and tests) running `body`; the
    /// `pthread_create` error code when it could not.
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) -> Int32? {
        final class Start {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                nameThisThread(start.name)
                start.body()
                return nil
            }, start)
        guard code == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            return code
        }
        pthread_detach(thread)
        return nil
    }
}

/// Names the calling thread (for debuggers, `top -H`, and tests) through `/proc`: `prctl` is
/// variadic in C and glibc's `pthread_setname_np` is not in Swift's Glibc module. A name that
/// cannot be set changes nothing else.
private func nameThisThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let bytes = Array(name.utf8.prefix(15))  // the kernel keeps 15 bytes and a NUL
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
