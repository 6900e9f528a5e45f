/// A one-line progress display on stderr while fetching ("feedcli: posts, page 2…"), redrawn in
/// place. Shown only when stderr is a terminal and `--quiet` is not given; it uses no colour, so
/// `NO_COLOR` needs nothing more. Cleared when the work ends.
public final class ProgressLine: Sendable {
    private let sink: any OutputSink
    private let isShown = Locked(false)

    public init(sink: any OutputSink) {
        self.sink = sink
    }

    /// Observes reactor state; call for each state.
    public func update(_ state: FeedReactorState) {
        let fetching = state.feeds.values.sorted { $0.name < $1.name }.compactMap { status -> String? in
            guard case .fetching(let url, let page) = status.activity else { return nil }
            return "\(TerminalText.safe(status.name)), page \(page): \(TerminalText.safe(url))"
        }
        if let line = fetching.first {
            // Progress is a courtesy: a stderr that cannot take it changes nothing.
            try? sink.write("\r\u{1B}[K" + "feedcli: " + String(line.prefix(100)) + "…")
            _ = isShown.update { _ in true }
        } else {
            clear()
        }
    }

    public func clear() {
        var wasShown = false
        _ = isShown.update { shown in
            wasShown = shown
            return false
        }
        if wasShown { try? sink.write("\r\u{1B}[K") }
    }
}
