import CSQLite
import FeedModel
import FeedStoreContract
import FoundationEssentials

/// The current row of a stepping statement, read by column position.
///
/// Valid only until the statement steps again: values are copied out as they are read. Text is
/// read byte for byte whether SQLite holds it as text or as a blob (schema v3 keeps entry text as
/// blobs so that NUL survives).
package struct SQLiteRow {
    package let statement: OpaquePointer

    package func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    package func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    package func double(_ column: Int32) -> Double {
        sqlite3_column_double(statement, column)
    }

    package func int(_ column: Int32) -> Int {
        Int(truncatingIfNeeded: sqlite3_column_int64(statement, column))
    }

    package func optionalInt(_ column: Int32) -> Int? {
        isNull(column) ? nil : int(column)
    }

    /// An integer column that the schema keeps typed: nil for NULL, and a failure of the store
    /// naming the column when a damaged or hand-edited store holds anything else there (SQLite
    /// would read text as 0).
    package func integer(_ column: Int32) throws(FeedFailure) -> Int? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: nil
        case SQLITE_INTEGER: int(column)
        default:
            throw .storeAccess(
                "column \(name(column)) holds \(text(column).map { Excerpt.of($0, limit: 40) } ?? "a value"), "
                    + "not a number: the store is damaged")
        }
    }

    /// The column's name in the result, for messages.
    package func name(_ column: Int32) -> String {
        sqlite3_column_name(statement, column).map { String(cString: $0) } ?? "\(column)"
    }

    package func bool(_ column: Int32) -> Bool {
        sqlite3_column_int64(statement, column) != 0
    }

    /// The column's bytes as UTF-8 text (invalid sequences repaired), nil for NULL.
    package func text(_ column: Int32) -> String? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        // `column_blob` first, then `column_bytes`: SQLite's documented order for an exact length.
        let bytes = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Text of a column that is never NULL by the schema; "" if it is anyway.
    package func string(_ column: Int32) -> String {
        text(column) ?? ""
    }
}

/// SQLite's rows are read by the rules both stores share (`StoreRow`).
extension SQLiteRow: StoreRow {}
