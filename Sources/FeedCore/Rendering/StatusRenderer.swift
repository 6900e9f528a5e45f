import FeedModel
import FoundationEssentials
import Glibc

/// Renders feeds and their polling state for `status` and `feeds list`.
public enum StatusRenderer {
    public static func render(_ statuses: [FeedStatus], format: OutputFormat) -> [UInt8] {
        switch format {
        case .plain:
            return Array(statuses.map(plain).joined().utf8)
        case .json:
            let objects = statuses.map { String(decoding: json($0), as: UTF8.self) }
            return Array((objects.isEmpty ? "[]\n" : "[\n" + objects.joined(separator: ",\n") + "\n]\n").utf8)
        case .jsonl:
            return statuses.flatMap { json($0) + [0x0A] }
        }
    }

    package static func json(_ status: FeedStatus) -> [UInt8] {
        var writer = JSONWriter()
        let record = status.record
        let url: String? = record.map { Redaction.maskingSecrets(in: $0.registration.url) }
        writer.object([
            ("name", { $0.string(status.name) }),
            ("kind", { $0.string(record?.kindName) }),
            ("url", { $0.string(url) }),
            ("token_env", { $0.string(record?.registration.tokenEnv) }),
            ("entries", { $0.number(record?.total) }),
            ("unread", { $0.number(record?.unread) }),
            ("last_read_id", { $0.string(record?.lastReadID) }),
            ("next_index", { $0.number(record?.registration.kind == .indexed ? record?.nextIndex : nil) }),
            ("last_fetch_at", { $0.string(record?.lastFetchAt.map(Timestamp.format)) }),
            ("last_error", { $0.string(record?.lastError) }),
            ("last_error_code", { $0.number(record?.lastErrorCode.map(Int.init)) }),
            ("etag", { $0.string(record?.validators.etag) }),
            ("last_modified", { $0.string(record?.validators.lastModified) }),
            ("retry_not_before", { $0.string(record?.retryNotBefore.map(Timestamp.format)) }),
            ("every_seconds", { $0.number(record?.every.map { Int($0.components.seconds) }) }),
            ("next_due", { $0.string(record?.nextDue.map(Timestamp.format)) }),
            ("resume_url", { $0.string(record?.resumeURL.map(Redaction.maskingSecrets)) }),
            ("last_skipped", { $0.number(record?.lastSkipped) }),
            ("last_filtered", { $0.number(record?.lastFiltered) }),
            // A stream feed's position: its last event id (sent back as Last-Event-ID) and when
            // its last event came.
            ("last_event_id", { $0.string(record?.stream?.lastEventID) }),
            ("last_event_at", { $0.string(record?.stream.map { Timestamp.format($0.lastEventAt) }) }),
            // Retention: what the feed keeps, how long pruned ids are remembered, and what was
            // pruned (the unread among it).
            ("keep", { $0.string(record?.retention.keep.text) }),
            ("remember", { $0.string(record?.retention.remember.text) }),
            ("pruned", { $0.number(record?.pruned) }),
            ("pruned_unread", { $0.number(record?.prunedUnread) }),
            // A `json` feed's mapping and any feed's filter, as `feeds add` takes them.
            (
                "expressions",
                { writer in
                    if let json = record?.registration.effectiveExpressions.json {
                        writer.raw(json)
                    } else {
                        writer.raw("null")
                    }
                }
            ),
        ])
        return writer.bytes
    }

    package static func plain(_ status: FeedStatus) -> String {
        guard let record = status.record else { return "\(TerminalText.safe(status.name))\n" }
        let registration = record.registration
        let url = Redaction.maskingSecrets(in: registration.url)
        var lines = [
            "\(TerminalText.safe(status.name)) (\(TerminalText.safe(record.kindName))) \(TerminalText.safe(url))"
        ]
        if record.unknownKind != nil {
            lines.append(
                "  this feedcli does not know its kind (a newer feedcli's?): it is not fetched; "
                    + "upgrade feedcli, or `feedcli feeds remove \(TerminalText.safe(status.name))`")
        }
        var counts = "  entries: \(record.total), unread: \(record.unread)"
        if let lastRead = record.lastReadID { counts += ", read up to: \(TerminalText.safe(lastRead))" }
        if registration.kind == .indexed { counts += ", next index: \(record.nextIndex)" }
        lines.append(counts)
        lines.append(
            "  last fetch: \(record.lastFetchAt.map(Timestamp.format) ?? "never")"
                + (record.lastSkipped > 0
                    ? ", skipped \(record.lastSkipped) item\(record.lastSkipped == 1 ? "" : "s") without a usable id"
                    : "")
                + (record.lastFiltered > 0
                    ? ", the filter kept out \(record.lastFiltered) of \(record.lastFiltered + record.lastKept)" : "")
                + (record.lastError.map { ", last error: " + TerminalText.safe($0) } ?? ""))
        if !record.validators.isEmpty {
            lines.append(
                "  validators: "
                    + [
                        record.validators.etag.map { "etag " + TerminalText.safe($0) },
                        record.validators.lastModified.map { "last-modified " + TerminalText.safe($0) },
                    ]
                    .compactMap { $0 }.joined(separator: ", "))
        }
        if let every = record.every, every == EveryDuration.never {
            lines.append("  every never: a plain sync leaves it alone")
        } else if let every = record.every {
            lines.append(
                "  every \(EveryDuration.format(every))"
                    + (record.nextDue.map { ", next due \(Timestamp.format($0))" } ?? ", due now"))
        }
        if let until = record.retryNotBefore { lines.append("  retry not before: \(Timestamp.format(until))") }
        lines.append(
            "  keeps \(Self.keeping(record.retention.keep)), remembers pruned ids \(Self.remembering(record.retention.remember))"
                + (record.pruned > 0 ? "; pruned \(record.pruned) (\(record.prunedUnread) unread)" : ""))
        if let resume = record.resumeURL {
            lines.append("  older entries continue at: \(TerminalText.safe(Redaction.maskingSecrets(in: resume)))")
        }
        if let stream = record.stream {
            lines.append(
                "  last event: \(Timestamp.format(stream.lastEventAt))"
                    + (stream.lastEventID.map { ", id \(TerminalText.safe(Excerpt.of($0, limit: 200)))" }
                        ?? ", no event id (the server sends none)"))
        } else if registration.kind.isStream {
            lines.append("  last event: none yet")
        }
        if let env = registration.tokenEnv { lines.append("  token from: $\(TerminalText.safe(env))") }
        for (option, expression) in registration.expressions.expressions {  // the user's own; a preset's are in --json
            lines.append("  \(option) \(TerminalText.safe(expression))")
        }
        for event in registration.expressions.events ?? [] { lines.append("  --event \(TerminalText.safe(event))") }
        for (option, value) in [
            ("--cursor-param", registration.expressions.cursorParam),
            ("--page-param", registration.expressions.pageParam),
            ("--first-page", registration.expressions.firstPage.map(String.init)),
        ] {
            if let value { lines.append("  \(option) \(TerminalText.safe(value))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--keep` in words: `all`, `the newest 10000`, `7d`.
    static func keeping(_ keep: Retention.Keep) -> String {
        switch keep {
        case .all: "all"
        case .newest(let count): "the newest \(count)"
        case .storedWithin: "what was stored within \(keep.text)"
        }
    }

    static func remembering(_ remember: Retention.Remember) -> String {
        switch remember {
        case .forever: "forever"
        case .for(let duration) where duration == .zero: "not at all"
        case .for: "for \(remember.text)"
        }
    }
}
