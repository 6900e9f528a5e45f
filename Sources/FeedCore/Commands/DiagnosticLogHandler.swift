import FeedModel
import FeedTerminal
import Logging

/// `--verbose`'s lines, as feedcli's other diagnostics look: `feedcli: GET … -> 200 in 3 ms`,
/// one line each, on stderr (so they are timed like the rest when stderr is a file). No level,
/// label or source module: one line per request is the point of `-v`; `-vv` adds lines, not
/// decoration. A stderr that cannot be written loses the line and changes nothing else.
struct DiagnosticLogHandler: LogHandler {
    let sink: any OutputSink
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = Array("feedcli: \(TerminalText.safe(event.message.description))\n".utf8)
        // Under systemd, a request's line is information, not a failure.
        if let journal = sink as? JournalLines { try? journal.writeInformation(line) } else { try? sink.write(line) }
    }
}
