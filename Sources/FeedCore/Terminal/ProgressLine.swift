import FeedBase
import FeedModel
import FeedReactor
import FoundationEssentials
import Glibc

/// A one-line progress display on stderr while fetching ("feedcli: fireball, page 2: URL", or
/// "index 29" for indexed feeds), redrawn in place and cut to the terminal's width. Shown only
/// when stderr is a terminal, `TERM` is not `dumb` and `--quiet` is not given; it uses no colour,
/// so `NO_COLOR` needs nothing more. Cleared when the work ends, and before any entry is printed
/// (`pausing`), so data never lands on the progress line's row.
public final class ProgressLine: RunProgress {
    private let sink: any OutputSink
    /// Whether a line is on screen; the lock also serializes drawing with `pausing`.
    private let isShown = Locked(false)

    public init(sink: any OutputSink) {
        self.sink = sink
    }

    /// Observes reactor state; call for each state.
    public func update(_ state: FeedReactorState) {
        let fetching = state.feeds.values.sorted { $0.name < $1.name }.compactMap { status -> String? in
            guard case .fetching(let url, let number) = status.activity else { return nil }
            let step = status.record?.registration.kind == .indexed ? "index" : "page"
            return "\(TerminalText.safe(status.name)), \(step) \(number): \(TerminalText.safe(url))"
        }
        guard let line = fetching.first else { return clear() }
        let width = max(20, (sink.columns ?? 80) - 1)
        let text = "feedcli: " + line
        let fitted = text.count > width ? String(text.prefix(width - 1)) + "…" : text
        isShown.withLock { shown in
            // Progress is a courtesy: a stderr that cannot take it changes nothing.
            try? sink.write("\r\u{1B}[K" + fitted)
            shown = true
        }
    }

    public func clear() {
        isShown.withLock { shown in
            if shown { try? sink.write("\r\u{1B}[K") }
            shown = false
        }
    }

    /// Runs `body` (printing data) with the line cleared and no redraw until it returns.
    public func pausing<T>(_ body: () throws -> T) rethrows -> T {
        try isShown.withLock { shown in
            if shown { try? sink.write("\r\u{1B}[K") }
            shown = false
            return try body()
        }
    }
}
