import Glibc

/// How a pipe's writer waits for its reader to take a record: first gives the reader the CPU
/// (a reader that is running takes the bytes within microseconds), then sleeps, doubling from
/// 10 µs up to `longestPause`, so a reader that starts late is seen at most that long after it
/// starts, however long it took, and a waiting writer costs next to no CPU.
///
/// A value per record: every record's wait starts afresh.
package struct ReaderWait: Sendable, Equatable {
    /// The longest sleep between two looks at the pipe (and at Ctrl-C).
    package static let longestPause: Duration = .milliseconds(20)
    /// Yields to the reader before the first sleep.
    package static let yields = 16

    package enum Step: Sendable, Equatable {
        case yield
        case sleep(Duration)
    }

    private var yielded = 0
    private var pause: Duration = .microseconds(10)

    package init() {}

    /// What to do before the next look at the pipe.
    package mutating func next() -> Step {
        if yielded < Self.yields {
            yielded += 1
            return .yield
        }
        defer { pause = min(pause * 2, Self.longestPause) }
        return .sleep(pause)
    }

    /// Takes `step`: `sched_yield` or `usleep`.
    package static func take(_ step: Step) {
        switch step {
        case .yield:
            sched_yield()
        case .sleep(let pause):
            usleep(useconds_t(pause.components.attoseconds / 1_000_000_000_000 + pause.components.seconds * 1_000_000))
        }
    }
}
