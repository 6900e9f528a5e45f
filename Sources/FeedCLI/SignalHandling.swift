import Dispatch
import FeedCore


/// Process-level signal wiring.
///
/// - SIGPIPE is ignored: a reader that went away shows up as EPIPE on the write, which each
///   command handles (quietly for `list`, `show`, `status`; 74 for `next` and `sync`, which
///   then commit nothing unprinted).
/// - SIGINT (Ctrl-C) and SIGTERM trigger the command's `Interruption`: the request in flight is
///   aborted and nothing more is printed, so every entry is either printed and committed, or
///   neither; the command then exits 130. If the command is stuck elsewhere (waiting for a
///   lock), the process exits 130 two seconds later anyway: committed state is transactional,
///   and an entry printed but not yet committed is printed again next time (at-least-once).
enum SignalHandling {
    static let interruption = Interruption()

    static func install() -> [any DispatchSourceSignal] {
        signal(SIGPIPE, SIG_IGN)
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                interruption.trigger()
                DispatchQueue.global().asyncAfter(deadline: .now() + 2) { _exit(130) }
            }
            source.resume()
            return source
        }
    }
}
