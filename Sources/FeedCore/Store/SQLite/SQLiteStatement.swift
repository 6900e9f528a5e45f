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
package final class SQLiteStatement {
    package let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    /// The bytes of the text and blob values bound last, which SQLite reads in place
    /// (`SQLITE_STATIC`) rather than copying each into an allocation of its own. Invariant: SQLite
    /// holds pointers into it only from one `bind` to the next, which clears them before this
    /// buffer is replaced; it is freed after the statement is finalized, or (past `keptRoom`)
    /// once its run is done, with the bindings cleared first.
    private var bound = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    package init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
        bound.deallocate()
    }

    /// Resets the statement and binds `arguments` to its parameters, in order.
    package func bind(_ arguments: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        // A missing argument would bind NULL in silence; an extra one would be dropped.
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(arguments.count) values for \(expected) parameters")
        }
        try makeRoom(for: arguments)
        var offset = 0
        for (position, argument) in arguments.enumerated() {
            let index = Int32(position + 1)
            let code: Int32
            switch argument {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let value):
                code = sqlite3_bind_int64(handle, index, value)
            case .text(let value):
                code = bindBytes(value, at: index, asBlob: false, offset: &offset)
            case .blob(let value):
                code = bindBytes(value, at: index, asBlob: true, offset: &offset)
            }
            guard code == SQLITE_OK else { throw connection.error(code) }
        }
    }

    /// Grows `bound` to hold every text and blob value of `arguments` (no binding points into it
    /// now: `bind` cleared them).
    private func makeRoom(for arguments: [SQLiteValue]) throws(SQLiteError) {
        var needed = 0
        for argument in arguments {
            switch argument {
            case .text(let value), .blob(let value):
                needed = needed.addingReportingOverflow(value.utf8.count).partialValue
            case .null, .integer: break
            }
        }
        // SQLite takes 32-bit lengths: a longer value is too big, never a trap.
        guard needed <= Int(Int32.max) else {
            throw SQLiteError(code: SQLITE_TOOBIG, message: "a value too big to bind")
        }
        guard needed > bound.count || bound.baseAddress == nil else { return }
        bound.deallocate()
        // Twice what is needed while it is small (rows grow a little, and each growth is a
        // new allocation); what a large value needs exactly: a 15 MiB entry must not leave
        // 60 MiB behind it.
        bound = .allocate(byteCount: needed <= Self.keptRoom ? max(256, needed * 2) : needed, alignment: 1)
    }

    /// The most room for bound values a statement keeps between runs: a larger one (a huge
    /// entry's text and source) is let go once its run is done, so that one big entry does not
    /// hold its size for as long as the statement is cached (a follow's whole life).
    static let keptRoom = 1 << 20

    /// Lets go of the room a large value took, its bindings cleared first (no binding may
    /// point into freed memory).
    private func releaseLargeRoom() {
        guard bound.count > Self.keptRoom else { return }
        sqlite3_clear_bindings(handle)
        bound.deallocate()
        bound = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    }

    /// Binds `value`'s bytes with an explicit length (never up to a NUL), copied into `bound` at
    /// `offset`, which moves past them.
    private func bindBytes(_ value: String, at index: Int32, asBlob: Bool, offset: inout Int) -> Int32 {
        var value = value
        return value.withUTF8 { bytes in
            // `makeRoom` made room for every value, so this is in bounds; a non-null pointer
            // even for "" (a null blob pointer would bind NULL).
            guard let base = bound.baseAddress?.advanced(by: offset), let count = Int32(exactly: bytes.count),
                offset + bytes.count <= bound.count
            else { return SQLITE_TOOBIG }
            if let source = bytes.baseAddress { base.copyMemory(from: source, byteCount: bytes.count) }
            offset += bytes.count
            return asBlob
                ? sqlite3_bind_blob(handle, index, base, count, sqliteStatic)
                : sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), count, sqliteStatic)
        }
    }

    /// Steps once: a row (read it before stepping again), or nil when the statement is done.
    package func step() throws(SQLiteError) -> SQLiteRow? {
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
        try bind(arguments)
        defer { releaseLargeRoom() }
        while try step() != nil {}
        sqlite3_reset(handle)
    }

    /// The first row, read by `read`, after running the statement to its end (so that a write
    /// with `RETURNING` is complete); nil when there is none.
    package func first<T>(_ arguments: [SQLiteValue] = [], _ read: (SQLiteRow) throws -> T) throws -> T? {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        guard let row = try step() else { return nil }
        let value = try read(row)
        while try step() != nil {}
        return value
    }

    /// Reads rows one at a time until `body` returns false or they run out.
    package func forEach(_ arguments: [SQLiteValue] = [], _ body: (SQLiteRow) throws -> Bool) throws {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        while let row = try step(), try body(row) {}
    }
}

/// `SQLITE_STATIC`: SQLite reads bound bytes in place, for as long as they are bound.
private let sqliteStatic: sqlite3_destructor_type? = nil
