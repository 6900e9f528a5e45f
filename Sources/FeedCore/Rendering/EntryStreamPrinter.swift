import Synchronization

/// Prints a growing list of entries as it grows: each call to `catchUp(with:)` prints the entries
/// not printed yet. State observers call it from reactor threads, one state at a time; the lock
/// makes a final call from the command's thread safe too. `--json` gets one array (`[]` when
/// empty); plain and JSON Lines print nothing at all when there is nothing.
final class EntryStreamPrinter: Sendable {
    private struct State: ~Copyable {
        var writer: EntryListWriter
        var printed = 0
    }
    private let state: Mutex<State>
    private let format: OutputFormat

    init(format: OutputFormat, sink: any OutputSink) {
        self.format = format
        state = Mutex(State(writer: EntryListWriter(format: format, sink: sink)))
    }

    func catchUp(with entries: [Entry]) {
        state.withLock { state in
            guard entries.count > state.printed else { return }
            for entry in entries[state.printed...] { state.writer.add(entry) }
            state.printed = entries.count
            state.writer.flush()
        }
    }

    func end() {
        state.withLock { state in
            if format == .json || state.printed > 0 { state.writer.end() }
        }
    }
}
