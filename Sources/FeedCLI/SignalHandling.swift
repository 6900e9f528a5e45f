import FeedTerminal
import FoundationEssentials
import Glibc

/// Process-level signal wiring.
///
/// - SIGPIPE is ignored: a reader that went away shows up as EPIPE on the write, which each
///   command handles (quietly for `list`, `show`, `status`; 74 for `next` and `sync`, which
///   then commit nothing unprinted).
/// - SIGINT (Ctrl-C) and SIGTERM trigger the command's `Interruption`: the request in flight is
///   aborted and nothing more is printed, so every entry is either printed and committed, or
///   neither; the command then exits 130. If the command is stuck elsewhere (waiting for a
///   lock), the process exits 130 two seconds later anyway (or once an `--exec` command that
///   holds an entry has ended): committed state is transactional, and an entry printed but not
///   yet committed is printed again next time (at-least-once).
/// - One signal, one code: `hold()`, the first thing `main` does, blocks both signals, so one
///   that arrives before `install()` waits for it instead of killing the process (143); and a
///   run interrupted at any point exits 130, even when its command had already finished. (Only
///   a signal before `main`, while the loader runs, keeps its default action.)
enum SignalHandling {
    static let interruption = Interruption()
    private static let signals = [SIGINT, SIGTERM]

    /// Blocks SIGINT and SIGTERM until `install()` waits for them.
    static func hold() {
        Interruption.block(signals)
    }

    static func install() {
        signal(SIGPIPE, SIG_IGN)
        interruption.triggering(on: signals) {
            sleep(2)
            // An `--exec` command that holds an entry decides it (it is killed at its
            // timeout), and its commit then takes a moment.
            if interruption.isHandingOver {
                while interruption.isHandingOver { usleep(50_000) }
                sleep(1)
            }
            Pager.waitForRunningPager()  // never leave the terminal to a pager whose writer is gone
            _exit(interruption.isNormalEnd ? 0 : 130)
        }
    }

    /// Whether the run was interrupted, by a signal already handled or one still waiting, and
    /// its command does not take that as its end (`follow`). Asked as the process ends: the
    /// signal thread is settled first, so a signal it was taking in that moment counts.
    static var interrupted: Bool {
        interruption.settleSignals()
        return !interruption.isNormalEnd && (interruption.isTriggered || Interruption.isPending(signals))
    }
}
