import CPostgres
import FeedModel
import FeedStoreContract

/// The rows of a statement's result, in libpq's binary format, owned until `deinit`.
///
/// Columns are read by position, as the schema types them: `bigint` (8 bytes, big-endian),
/// `boolean` (1 byte), `text` and `bytea` (the bytes themselves).
package final class PostgresResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { cpg_clear(handle) }

    package var count: Int { Int(cpg_rows(handle)) }
    /// How many rows an INSERT, UPDATE or DELETE changed.
    package var changed: Int { Int(cpg_changed(handle)) }

    package func row(_ index: Int) -> PostgresRow {
        PostgresRow(result: self, index: Int32(index))
    }

    package var rows: [PostgresRow] { (0..<count).map(row) }

    /// Every row read as an entry (`StoreColumns.entry`).
    package func entries() throws(FeedFailure) -> [Entry] {
        var entries: [Entry] = []
        for row in rows { entries.append(try row.entry()) }
        return entries
    }

    /// The first column of the first row as a number; nil when there is no row.
    package func firstInteger() throws(FeedFailure) -> Int64? {
        guard count > 0 else { return nil }
        return Int64(try row(0).requiredInteger(0))
    }
}

/// One row of a `PostgresResult`, valid while the result is.
package struct PostgresRow: StoreRow {
    let result: PostgresResult
    let index: Int32

    package func isNull(_ column: Int32) -> Bool {
        cpg_is_null(result.handle, index, column) != 0
    }

    private func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(cpg_length(result.handle, index, column))
        return UnsafeRawBufferPointer(start: cpg_value(result.handle, index, column), count: count)
    }

    package func text(_ column: Int32) -> String? {
        guard !isNull(column) else { return nil }
        return String(decoding: bytes(column), as: UTF8.self)
    }

    package func integer(_ column: Int32) throws(FeedFailure) -> Int? {
        guard !isNull(column) else { return nil }
        let bytes = bytes(column)
        guard [2, 4, 8].contains(bytes.count) else {
            throw .storeAccess(
                "column \(name(column)) of a result is not an integer: the store's schema is not feedcli's")
        }
        // Big-endian two's complement of the column's width, sign-extended.
        var value: Int64 = bytes[0] & 0x80 != 0 ? -1 : 0
        for byte in bytes { value = value << 8 | Int64(byte) }
        return Int(value)
    }

    /// A `float8` column (big-endian IEEE 754); 0 when it is not one.
    package func double(_ column: Int32) -> Double {
        let bytes = bytes(column)
        guard !isNull(column), bytes.count == 8 else { return 0 }
        return Double(bitPattern: bytes.reduce(0) { $0 << 8 | UInt64($1) })
    }

    package func bool(_ column: Int32) -> Bool {
        let bytes = bytes(column)
        return !isNull(column) && bytes.count == 1 && bytes[0] != 0
    }

    package func name(_ column: Int32) -> String { "\(column + 1)" }
}
