import ArgumentParser
import FeedPostgres
import FeedStore
import FeedStoreContract
import FoundationEssentials

extension CompletionKind {
    /// Completes feed names from the store (the one `--state` names in the words typed so far,
    /// else the default).
    static var feedNames: CompletionKind {
        .custom { arguments, index, _ in
            FeedNameCompletion.names(
                completing: FeedNameCompletion.word(at: index, of: arguments), arguments: arguments,
                environment: ProcessInfo.processInfo.environment)
        }
    }

    /// Feed names once `--all` is on the line (`read --all FEED…`), whose arguments are entries
    /// without it (nothing to offer there: ids are not worth a store scan at each Tab).
    static var feedNamesAfterAll: CompletionKind {
        .custom { arguments, index, _ in
            guard arguments.contains("--all") else { return [] }
            return FeedNameCompletion.names(
                completing: FeedNameCompletion.word(at: index, of: arguments), arguments: arguments,
                environment: ProcessInfo.processInfo.environment)
        }
    }
}

/// Feed names for shell completion.
enum FeedNameCompletion {
    /// The word being completed, as typed so far: the one at `index` (the parser's own prefix is
    /// cut from the line's last word, which is another when the cursor is not at the end).
    /// fish's script (swift-argument-parser's) stands for an empty word with the two characters
    /// `''`, quoted once too often; that is an empty word too.
    static func word(at index: Int, of arguments: [String]) -> String {
        let word = arguments.indices.contains(index) ? arguments[index] : ""
        return word == "''" ? "" : word
    }

    /// Feed names starting with `prefix`, read from the store `--state` names in `arguments`
    /// (else the default store), a SQLite file or a PostgreSQL database, never creating one (nor
    /// a database's schema). Completion must never fail loudly, so any problem completes nothing.
    static func names(completing prefix: String, arguments: [String], environment: [String: String]) -> [String] {
        var location = CommandContext.defaultStatePath(environment: environment)
        if case .path(let given) = StoreOptions.stateArgument(in: arguments) { location = given }
        guard let store = readOnlyStore(at: location), let feeds = try? store.feeds() else { return [] }
        return feeds.map(\.name).filter { $0.hasPrefix(prefix) }
    }

    /// The store at `location` opened for reading, nil when there is none or it cannot be read.
    private static func readOnlyStore(at location: String) -> (any StateStore)? {
        if StoreRules.isDatabaseURL(location) {
            // The shortest wait libpq allows (2 s) for a server that does not answer.
            return (try? PostgresStore.open(url: location, wait: .zero, access: .readOnly)) ?? nil
        }
        guard FileManager.default.fileExists(atPath: location) else { return nil }
        // A moment's wait: SQLite can answer "busy" to a reader while another connection sets
        // up or recovers the journal's index, and a Tab that completes nothing (as one did while
        // the test suite loaded the machine) reads as "no such feed".
        return try? FeedStore.open(at: location, wait: .milliseconds(500), access: .readOnly)
    }
}
