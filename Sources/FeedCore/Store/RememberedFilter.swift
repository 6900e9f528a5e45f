import FeedStoreContract
import Synchronization

/// What one open SQLite store knows in memory of the remembered ids' keys (`remembered`): a
/// Bloom filter, so that an id that is not remembered, nearly every id a stream sends, is told
/// apart without a probe of every generation (`RememberedGeneration.probe`), whose pages, in a
/// window of a million ids, are mostly not in SQLite's cache (a probe of the table by key was
/// 3.3 µs an id, the largest part of what remembering cost a `follow`).
///
/// A filter only answers "not remembered" for certain, and only while it is current: it holds
/// every key the store held when it last read the store's *mark* (`remembered_mark`, a random
/// value each write that remembers ids sets anew) and the keys this store added since. So:
/// - a commit that remembers ids reads the mark, sets a new one and, when the filter was current
///   at the old mark, adds its keys and takes the new mark (`added`). Keys added before the commit
///   is durable are harmless when it rolls back: the store keeps the old mark, which the filter
///   no longer has, so the filter is not current;
/// - another run's commit sets a mark this filter never had: not current, every id is probed
///   again until the filter is built anew;
/// - forgotten ids stay in the filter (a false "maybe", which a probe answers); so do ids that
///   collide, about one in a hundred.
///
/// Built (`build`) from a scan of the table, in the read transaction that reads the mark,
/// once the probes since it was last current cost about what the scan does (`shouldBuild`): a
/// `sync` that checks a page of ids never scans, a `follow` scans once, and one that shares the
/// store with another pruning run scans at most every 512th of the ids' count in probes.
/// Not built for more than `mostKeys` ids (12 MiB of filter); those stores probe as before.
final class RememberedFilter: Sendable {
    private struct State {
        /// The mark the store held when the filter was last current; nil: not current.
        var mark: Int64?
        var bits: [UInt64] = []
        /// How many keys the filter was sized for, and how many it holds.
        var capacity = 0
        var count = 0
        /// What probing has cost since the filter was last current, in keys of a scan
        /// (`probeWeight` a probe).
        var probesSinceCurrent = 0
    }
    private let state = Mutex(State())

    /// Above this many remembered ids no filter is built.
    static let mostKeys = 4_000_000
    /// Bits of filter a key (twelve: about one "maybe" in a hundred for a key not held).
    private static let bitsPerKey = 12
    /// What a probe costs in keys of the scan that builds the filter: it looks in each of the
    /// feed's 64 to 128 generations (two seeks each), where a scan reads a page of keys a seek.
    static let probeWeight = 16

    init() {}

    /// Whether `key` may be remembered, as far as the filter knows with the store at `mark`:
    /// false only when it is certainly not. Counts a probe when the answer sends one to the tables.
    func mayHold(_ key: Int64, mark: Int64) -> Bool {
        state.withLock { state in
            guard state.mark == mark, !state.bits.isEmpty else {
                // Marks are random: one the store has moved past never comes back.
                state.mark = nil
                state.probesSinceCurrent += Self.probeWeight
                return true
            }
            let block = Self.block(key, words: state.bits.count)
            for word in 0..<8 where state.bits[block + word] & Self.bit(key, word: word) == 0 { return false }
            return true
        }
    }

    /// The mark at which the filter is current; nil when it is not.
    var currentMark: Int64? { state.withLock { $0.mark } }

    /// Whether probing has cost about what a scan of `count`'s worth of keys would, so a build is due.
    func shouldBuild() -> Bool {
        state.withLock { state in
            state.mark == nil && state.probesSinceCurrent >= max(4096, state.capacity / 32)
        }
    }

    /// A filter of the `count` keys the store holds at `mark`, which `keys` hands one at a time
    /// to the function it is given (a scan: no array of them all); none when there are too many.
    func build(count: Int, mark: Int64, keys: ((Int64) -> Void) throws -> Void) rethrows {
        let capacity = max(count * 2, 65536)
        guard count <= Self.mostKeys else {
            state.withLock { state in state = State(capacity: capacity) }
            return
        }
        var bits = [UInt64](repeating: 0, count: (capacity * Self.bitsPerKey + 511) / 512 * 8)
        var added = 0
        try keys { key in
            Self.insert(key, into: &bits)
            added += 1
        }
        state.withLock { state in
            state = State(mark: mark, bits: bits, capacity: capacity, count: added)
        }
    }

    /// A commit moved the store's mark from `previous` to `mark` and remembered `keys`: added when
    /// the filter was current at `previous`; a filter full to its capacity is not current after.
    func added(_ keys: [Int64], previous: Int64, mark: Int64) {
        state.withLock { state in
            guard state.mark == previous, !state.bits.isEmpty, state.count + keys.count <= state.capacity else {
                state.mark = nil
                return
            }
            for key in keys { Self.insert(key, into: &state.bits) }
            state.count += keys.count
            state.mark = mark
        }
    }

    private static func insert(_ key: Int64, into bits: inout [UInt64]) {
        let block = block(key, words: bits.count)
        for word in 0..<8 { bits[block + word] |= bit(key, word: word) }
    }

    /// Where `key` lives: the first word of its 64-byte block (8 words, one cache line), and one
    /// bit in each of the eight (`bit`). Keys are hashes already (`RememberedID.key`): the low 48 bits
    /// place the bits, a multiplied copy the block (Lemire's multiply-shift, any block count).
    private static func block(_ key: Int64, words: Int) -> Int {
        let mixed = UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: ((mixed >> 32) &* UInt64(words / 8)) >> 32) * 8
    }

    private static func bit(_ key: Int64, word: Int) -> UInt64 {
        (1 as UInt64) << ((UInt64(bitPattern: key) >> UInt64(word * 6)) & 63)
    }
}
