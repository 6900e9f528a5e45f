import FeedModel
import Synchronization

/// The numbers (handles) of entries that were numbered for a delivery that did not take them
/// (an `--exec` command refused one, and those after it waited): the next delivery of the same
/// entries in this run gives them the same numbers, so a handle named in a refusal's message is
/// the one the entry is stored under once the command takes it, however many tries that needs.
///
/// Thread-safe: feeds deliver from several threads.
package final class KeptNumbers: Sendable {
    private let numbers = Mutex<[String: [String: Int64]]>([:])

    package init() {}

    /// `entries` with the numbers kept for them; the others keep `seq` 0 (not numbered yet).
    package func restore(_ entries: [Entry], feed: String) -> [Entry] {
        numbers.withLock { numbers in
            guard let kept = numbers[feed] else { return entries }
            return entries.map { entry in
                var entry = entry
                if let seq = kept[entry.id] { entry.seq = seq }
                return entry
            }
        }
    }

    /// Keeps the numbers of `undelivered`, and lets go of those of `delivered`.
    package func record(delivered: some Sequence<Entry>, undelivered: some Sequence<Entry>, feed: String) {
        numbers.withLock { numbers in
            var kept = numbers[feed] ?? [:]
            for entry in delivered { kept[entry.id] = nil }
            for entry in undelivered where entry.seq != 0 { kept[entry.id] = entry.seq }
            numbers[feed] = kept.isEmpty ? nil : kept
        }
    }
}
