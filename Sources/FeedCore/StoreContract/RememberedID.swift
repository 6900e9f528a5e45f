import FeedModel

/// How both stores remember the id of an entry retention let go: as one 64-bit key, the hash of
/// the feed's name and the id, never the id itself (an id may be a 2,000-byte URL; the contract
/// allows 64 bytes of store an id). The key is the table's own row key (SQLite's rowid), so a
/// remembered id costs its key, its expiry and the expiry index's entry.
///
/// A hash may collide: two different ids of one feed with one key would make the second look
/// known. With 64 bits and a million ids remembered per feed, a new id is mistaken once in about
/// 18 trillion (2^64 / 10^6); the feed's name is hashed in, so feeds never mistake each other's.
package enum RememberedID {
    /// FNV-1a over the feed's name, a NUL and the id's UTF-8, then MurmurHash3's finalizer (FNV
    /// alone mixes its last bytes poorly). Fixed forever: stores hold these keys.
    package static func key(feed: String, id: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        for byte in feed.utf8 { add(byte) }
        add(0)
        for byte in id.utf8 { add(byte) }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash &*= 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return Int64(bitPattern: hash)
    }

    /// How late, at most, a store forgets an id remembered for `seconds`, after its time: a
    /// remembered id is known for at least its `--remember` and at most 1/64 of it longer (a
    /// second at least). SQLite files ids in generations of about that grain and forgets a
    /// generation once it has ended (`RememberedGeneration`); PostgreSQL forgets each at its time.
    package static func forgottenLateAtMost(rememberedFor seconds: Int64) -> Int64 { max(1, seconds / 64) }
}

/// A remembered id as a store holds it: its key and until when (seconds since 1970; nil: for
/// ever). What `store copy` carries from one store to another.
public struct RememberedRow: Sendable, Equatable {
    public var key: Int64
    public var until: Int64?

    public init(key: Int64, until: Int64?) {
        self.key = key
        self.until = until
    }
}
