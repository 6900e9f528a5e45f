import CSQLite
import FeedStoreContract
import FoundationEssentials
import Glibc

/// A failure reported by SQLite: its primary result code and message.
package struct SQLiteError: Error, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_FULL`, …), extended bits removed.
    package var code: Int32
    package var message: String

    package init(code: Int32, message: String) {
        self.code = code & 0xFF
        self.message = message
    }

    /// The connection's last error, for a call that returned `code`; with the extended code and
    /// the operating system's error when SQLite has them (a "disk is full" whose disk is not
    /// full says why: the write's errno).
    package init(code: Int32, connection: OpaquePointer?) {
        var message =
            connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        if let connection {
            let extended = sqlite3_extended_errcode(connection)
            let system = sqlite3_system_errno(connection)
            if extended != code & 0xFF || system != 0 {
                message +=
                    " (SQLite code \(extended)\(system != 0 ? ", errno \(system): " + String(cString: strerror(system)) : ""))"
            }
        }
        self.init(code: code, message: message)
    }

    package var description: String { message }
}
