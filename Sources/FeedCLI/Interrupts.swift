import Dispatch
import FeedCore
import Foundation

/// Process-level signal wiring: SIGPIPE is ignored (a closed pipe ends output quietly, see
/// `FileDescriptorSink`), and SIGINT triggers the command's `Interruption`, which aborts the
/// request in flight so nothing of it is committed; the command then exits 130. If the command
/// is stuck elsewhere (waiting for a lock), the process exits 130 two seconds later anyway:
/// committed state is transactional, so that is safe.
enum Interrupts {
    static let shared = Interruption()

    static func install() -> any DispatchSourceSignal {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            shared.trigger()
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) { _exit(130) }
        }
        source.resume()
        return source
    }
}
