import FoundationEssentials

/// Every way a command can fail, each with the contract's exit code. Failures are values: the
/// reactor records them in state (`lastError`), the store persists their summary, and the CLI
/// exits with `exitCode`.
public enum FeedFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// 64: a bad option or argument, or `feeds add` of an existing name without `--replace`.
    case usage(String)
    /// 65: the server's data is not what the feed's kind promises.
    case badData(String)
    /// 66: no such feed or entry.
    case notFound(String)
    /// 69: the server refused for good (4xx other than 401/403/404-as-end/408/429).
    case refused(status: Int, url: String)
    /// 69: the server ended the feed for good in its own words (a Nostr relay's `CLOSED`).
    case unavailable(String)
    /// 73: the state store cannot be created.
    case storeCreate(String)
    /// 74: the state store cannot be read or written, or is not a feedcli store.
    case storeAccess(String)
    /// 74: stdout could not take the output (disk full, closed, reader gone); the message says
    /// what was and was not delivered.
    case output(String)
    /// 75: try again later (timeouts, refused connections, 408/429/5xx after retries, a busy feed).
    case temporary(String)
    /// 75: the `--exec` command refused an entry (exit status not 0, killed, past its timeout):
    /// that feed's delivery stops there, the other feeds go on, and `follow` tries the feed again.
    case commandFailed(String)
    /// 76: the server broke HTTP.
    case protocolError(String)
    /// 77: HTTP 401 or 403.
    case unauthorized(status: Int, url: String)
    /// 78: the feed's configuration cannot work (bad URL, unsupported scheme).
    case configuration(String)
    /// 130: interrupted by the user.
    case interrupted

    public var exitCode: Int32 {
        switch self {
        case .usage: 64
        case .badData: 65
        case .notFound: 66
        case .refused, .unavailable: 69
        case .storeCreate: 73
        case .storeAccess, .output: 74
        case .temporary, .commandFailed: 75
        case .protocolError: 76
        case .unauthorized: 77
        case .configuration: 78
        case .interrupted: 130
        }
    }

    /// What the exit code says, in a few words (the line a long `follow` writes when a feed
    /// starts failing names it).
    public var meaning: String {
        switch exitCode {
        case 64: "a usage error"
        case 65: "the server's data is not what the feed's kind promises"
        case 66: "no such feed or entry"
        case 69: "the server refused for good"
        case 73: "the store cannot be created"
        case 74: "the store or the output cannot be written"
        case 75: "temporary: tried again"
        case 76: "the server broke the protocol"
        case 77: "not authorized: check the feed's token"
        case 78: "the feed's configuration cannot work"
        default: "interrupted"
        }
    }

    /// How a refusal of an `--exec` command begins (`commandFailed`'s message, and so the feed's
    /// `last_error` it leaves): a delivery that goes through later forgets it.
    public static let commandRefusalPrefix = "--exec command "

    /// Temporary failures are the ones a later run may not see again.
    public var isTemporary: Bool { self.exitCode == 75 }

    /// The message: URL passwords masked, at most 1,000 characters, control characters escaped.
    public var description: String {
        Excerpt.of(Redaction.maskingSecrets(in: text), limit: 1000)
    }

    private var text: String {
        switch self {
        case .usage(let message): "usage: \(message)"
        case .badData(let message): "bad data: \(message)"
        case .notFound(let message): message
        case .refused(let status, let url): "the server refused with HTTP \(status): \(url)"
        case .unavailable(let message): message
        case .storeCreate(let message): "cannot create the state store: \(message)"
        case .storeAccess(let message): "cannot use the state store: \(message)"
        case .output(let message): message
        case .temporary(let message): "temporary failure, try later: \(message)"
        case .commandFailed(let message): message
        case .protocolError(let message): "the server broke HTTP: \(message)"
        case .unauthorized(let status, let url): "not authorized (HTTP \(status)): \(url)"
        case .configuration(let message): "configuration error: \(message)"
        case .interrupted: "interrupted"
        }
    }

    /// Of several failures (a multi-feed sync), the one whose exit code wins: any permanent
    /// failure outranks a temporary one; among permanent failures the highest code wins.
    public static func mostSerious(_ failures: [FeedFailure]) -> FeedFailure? {
        failures.max { lhs, rhs in
            if lhs.isTemporary != rhs.isTemporary { return lhs.isTemporary }
            return lhs.exitCode < rhs.exitCode
        }
    }
}
