import FeedModel
import FoundationEssentials

/// Why a jq expression gave no result.
public enum JQError: Error, Sendable, Equatable, CustomStringConvertible {
    /// jq cannot compile it; jq's message.
    case compile(String)
    /// It uses a builtin that reads outside the expression (`JQExpressionCheck`), which feedcli
    /// refuses before jq sees it.
    case refused(builtin: String)
    /// It raised an error on the data; jq's message.
    case runtime(String)
    /// jq's library is missing, or the worker cannot be started.
    case unavailable(String)
    /// It ran longer than the run's `--timeout`; its worker was ended.
    case timedOut(Duration)
    /// Its worker ran out of the memory `--jq-memory` allows (bytes).
    case outOfMemory(limit: Int)
    /// jq crashed on it (the worker died: the signal's name, or how it ended).
    case crashed(String)

    public var description: String {
        switch self {
        case .compile(let message), .runtime(let message), .unavailable(let message): message
        case .refused(let builtin):
            "`\(builtin)` reads input or files, which feedcli's jq does not allow (import, include, input, inputs, "
                + "input_filename, modulemeta, get_search_list are refused)"
        case .timedOut(let limit): "it ran past --timeout (\(Self.seconds(limit))) and was stopped"
        case .outOfMemory(let limit): "it ran out of memory (--jq-memory \(MemorySize.format(limit))) and was stopped"
        case .crashed(let how): "jq crashed on it (\(how)); only this feed is affected"
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
