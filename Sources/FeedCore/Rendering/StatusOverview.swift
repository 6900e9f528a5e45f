import FeedModel
import FoundationEssentials

/// `status` in plain text: one line a feed, as a dashboard (name, kind, unread/total, last fetch
/// as an age, when a plain sync fetches it next, an error mark), under a header, in columns.
/// `feeds list` shows the same feeds in detail (`StatusRenderer.plain`); `--json` has it all.
public enum StatusOverview {
    public static func render(_ statuses: [FeedStatus], now: Date, width: Int? = nil) -> [UInt8] {
        let rows = statuses.map { row($0, now: now) }
        guard !rows.isEmpty else { return [] }
        let header = ["FEED", "KIND", "UNREAD", "LAST FETCH", "NEXT"]
        // Columns are terminal columns: a wide character takes two, a combining mark none.
        let widths = header.indices.map { column in
            ([header] + rows.map(\.cells)).map { DisplayWidth.of($0[column]) }.max() ?? 0
        }
        func line(_ cells: [String], _ mark: String) -> String {
            let padded = zip(cells, widths).map { DisplayWidth.padded($0, to: $1) }.joined(separator: "  ")
            return EntryRenderer.fitting(
                mark.isEmpty ? padded.trimmingTrailingBlanks() : padded + "  " + mark, width: width) + "\n"
        }
        return Array((line(header, "") + rows.map { line($0.cells, $0.mark) }.joined()).utf8)
    }

    package struct Row {
        var cells: [String]
        /// `! 75 temporary failure…` for a feed whose last fetch failed; `~ …` for one whose last
        /// sync kept nothing back to show (its filter kept out every item, or items were
        /// skipped for want of an id); empty otherwise.
        var mark: String
    }

    package static func row(_ status: FeedStatus, now: Date) -> Row {
        let name = TerminalText.safe(status.name)
        guard let record = status.record else { return Row(cells: [name, "", "", "", ""], mark: "") }
        let fetched = record.lastFetchAt.map { age(from: $0, to: now) + " ago" } ?? "never"
        let mark =
            record.lastError.map { "! \(record.lastErrorCode.map(String.init) ?? "") \(Excerpt.of($0, limit: 70))" }
            ?? notice(record) ?? ""
        return Row(
            cells: [
                name, TerminalText.safe(record.kindName), "\(record.unread)/\(record.total)", fetched,
                next(record, now: now),
            ],
            mark: TerminalText.safe(mark))
    }

    /// What a feed whose last fetch succeeded still says: its filter kept out everything it saw
    /// (a filter that drops everything is otherwise silent), or items were skipped.
    static func notice(_ record: FeedRecord) -> String? {
        if record.filterKeptNothing { return "~ the filter kept out all \(record.lastFiltered) items of the last sync" }
        if record.lastSkipped > 0 {
            return "~ \(record.lastSkipped) item\(record.lastSkipped == 1 ? "" : "s") skipped: no usable id"
        }
        return nil
    }

    /// When a plain `sync` fetches the feed next: `now`, `in 28m`, `never` (`--every never`),
    /// or after the server's `Retry-After`.
    package static func next(_ record: FeedRecord, now: Date) -> String {
        if record.every == EveryDuration.never { return "never" }
        let due = [record.nextDue, record.retryNotBefore].compactMap { $0 }.max()
        guard let due, due > now else { return "now" }
        // Clamped before the conversion: a time read back from a store edited by hand is no trap.
        let interval = due.timeIntervalSince(now)
        return "in " + WaitText.of(seconds: interval.isFinite ? Int64(min(interval, 1e15).rounded(.up)) : 0)
    }

    /// A duration in its largest whole unit: `42s`, `5m`, `3h`, `2d`.
    package static func age(from start: Date, to end: Date) -> String {
        // Clamped before the conversion: a time read back from a store edited by hand is no trap.
        let interval = end.timeIntervalSince(start)
        let seconds = interval.isFinite ? Int(min(max(interval, 0), 1e15).rounded(.down)) : 0
        switch seconds {
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m"
        case ..<86_400: return "\(seconds / 3600)h"
        default: return "\(seconds / 86_400)d"
        }
    }
}

extension String {
    fileprivate func trimmingTrailingBlanks() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
