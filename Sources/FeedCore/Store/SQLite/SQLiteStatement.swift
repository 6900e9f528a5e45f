import CSQLite
import FeedStoreContract
import FoundationEssentials
import Glibc

/// A value bound to a statement's parameter.
package enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    /// Text bound as a blob: SQLite keeps every byte, NUL included (see schema v3).
    case blob(String)

    package init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    package init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    package init(_ value: Int32?) { self = value.map { .integer(Int64($0)) } ?? .null }
    package init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    package init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    package static func blob(_ value: String?) -> SQLiteValue { value.map { .blob($0) } ?? .null }
}

/// A prepared statement, owned by one `SQLiteConnection` and used only under its lock.
///
/// Statements are compiled once and kept by the connection (`SQLiteConnection.statement(_:)`):
/// compiling costs more than running the small statements the store runs per feed.
///
/// Text and blob values are bound in place (`SQLITE_STATIC`): SQLite reads the strings' own
/// UTF-8 storage, which is neither copied for it nor kept past the run. A huge entry's text and
/// source are then held once by the caller and once in the record SQLite builds, and never a
/// third time (`--max-size` plus a bounded backlog is the whole of a stream's memory).
/// Invariant: a binding points into a string only inside that string's `withUTF8`, which
/// encloses the statement's whole run; the bindings are cleared before it returns.
package final class SQLiteStatement {
    package let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    /// One byte that an empty text or blob is bound to: a null pointer would bind NULL.
    private let empty = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    package init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
        empty.deallocate()
    }

    /// Resets the statement, binds `arguments` to its parameters in order, runs `body` while
    /// they are bound, then resets the statement and clears them.
    private func withBound<T>(_ arguments: [SQLiteValue], _ body: () throws -> T) throws -> T {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        // A missing argument would bind NULL in silence; an extra one would be dropped.
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(arguments.count) values for \(expected) parameters")
        }
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        return try bindingFrom(arguments[...], body)
    }

    /// Binds the first of `arguments` (at its position), then the rest inside it: a string's
    /// bytes are only lent for the length of its `withUTF8`.
    private func bindingFrom<T>(_ arguments: ArraySlice<SQLiteValue>, _ body: () throws -> T) throws -> T {
        guard let argument = arguments.first else { return try body() }
        let index = Int32(arguments.startIndex + 1)
        let rest = arguments.dropFirst()
        switch argument {
        case .null:
            try check(sqlite3_bind_null(handle, index))
        case .integer(let value):
            try check(sqlite3_bind_int64(handle, index, value))
        case .text(var value):
            return try value.withUTF8 { bytes in
                try check(bindBytes(bytes, at: index, asBlob: false))
                return try bindingFrom(rest, body)
            }
        case .blob(var value):
            return try value.withUTF8 { bytes in
                try check(bindBytes(bytes, at: index, asBlob: true))
                return try bindingFrom(rest, body)
            }
        }
        return try bindingFrom(rest, body)
    }

    private func check(_ code: Int32) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw connection.error(code) }
    }

    /// Binds `bytes` in place with an explicit length (never up to a NUL); SQLite takes 32-bit
    /// lengths, so a longer value is too big, never a trap.
    private func bindBytes(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32, asBlob: Bool) -> Int32 {
        guard let count = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
        let base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(empty)
        return asBlob
            ? sqlite3_bind_blob(handle, index, base, count, sqliteStatic)
            : sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), count, sqliteStatic)
    }

    /// Steps once: a row (read it before stepping again), or nil when the statement is done.
    private func step() throws(SQLiteError) -> SQLiteRow? {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return SQLiteRow(statement: handle)
        case SQLITE_DONE: return nil
        case let code:
            sqlite3_reset(handle)
            throw connection.error(code)
        }
    }

    /// Runs the statement to its end, ignoring rows.
    package func run(_ arguments: [SQLiteValue] = []) throws(SQLiteError) {
        do {
            try withBound(arguments) { while try step() != nil {} }
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(code: SQLITE_ERROR, message: "\(error)")
        }
    }

    /// The first row, read by `read`, after running the statement to its end (so that a write
    /// with `RETURNING` is complete); nil when there is none.
    package func first<T>(_ arguments: [SQLiteValue] = [], _ read: (SQLiteRow) throws -> T) throws -> T? {
        try withBound(arguments) {
            guard let row = try step() else { return nil }
            let value = try read(row)
            while try step() != nil {}
            return value
        }
    }

    /// Reads rows one at a time until `body` returns false or they run out.
    package func forEach(_ arguments: [SQLiteValue] = [], _ body: (SQLiteRow) throws -> Bool) throws {
        try withBound(arguments) {
            while let row = try step(), try body(row) {}
        }
    }
}

/// `SQLITE_STATIC`: SQLite reads bound bytes in place, for as long as they are bound.
private let sqliteStatic: sqlite3_destructor_type? = nil
