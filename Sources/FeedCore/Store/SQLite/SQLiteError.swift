import CSQLite
import FeedStoreContract
import FoundationEssentials

/// A failure reported by SQLite: its primary result code and message.
package struct SQLiteError: Error, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_FULL`, …), extended bits removed.
    package var code: Int32
    package var message: String

    package init(code: Int32, message: String) {
        self.code = code & 0xFF
        self.message = message
    }

    /// The connection's last error, for a call that returned `code`.
    package init(code: Int32, connection: OpaquePointer?) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        self.init(code: code, message: message ?? String(cString: sqlite3_errstr(code)))
    }

    package var description: String { message }
}
