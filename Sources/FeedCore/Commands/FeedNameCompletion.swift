import ArgumentParser
import FeedStore
import FoundationEssentials

extension CompletionKind {
    /// Completes feed names from the store (the one `--state` names in the words typed so far,
    /// else the default).
    static var feedNames: CompletionKind {
        .custom { arguments, index, _ in
            // The word being completed, as typed so far.
            let word = arguments.indices.contains(index) ? arguments[index] : ""
            return FeedNameCompletion.names(completing: word, arguments: arguments,
                                            environment: ProcessInfo.processInfo.environment)
        }
    }
}

/// Feed names for shell completion.
enum FeedNameCompletion {
    /// Feed names starting with `prefix`, read from the store `--state` names in `arguments`
    /// (else the default store), never creating one. Completion must never fail loudly, so any
    /// problem completes nothing.
    static func names(completing prefix: String, arguments: [String], environment: [String: String]) -> [String] {
        var path = CommandContext.defaultStatePath(environment: environment)
        if case .path(let given) = StoreOptions.stateArgument(in: arguments) { path = given }
        guard FileManager.default.fileExists(atPath: path),
              let store = try? FeedStore.open(at: path, wait: .zero, access: .readOnly),
              let feeds = try? store.feeds()
        else { return [] }
        return feeds.map(\.name).filter { $0.hasPrefix(prefix) }
    }
}
