import CSQLite
import FeedModel
import FeedStoreContract
import FoundationEssentials
import Glibc

/// The store as a file: recognising a feedcli store without writing to it, resolving its path,
/// naming lock files, and saying what went wrong in words (never SQL, never a type dump).
package enum StoreFile {
    package struct Header {
        /// The journal is WAL (the header's read and write versions are 2).
        var isWAL: Bool
    }

    /// Refuses a non-empty file that is not SQLite, or a SQLite database of another application,
    /// reading only (the file is left untouched). nil when there is no store yet (no file, or an
    /// empty one).
    package static func checkIsFeedcliStore(_ path: String) throws(FeedFailure) -> Header? {
        try refuseSpecialFiles(path)
        // Non-blocking: a FIFO that appeared since the check must not hold the open.
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno != ENOENT { throw .storeAccess("\(path): cannot be read") }
            return nil
        }
        var header = [UInt8](repeating: 0, count: 100)
        let count = header.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 100) }
        close(descriptor)
        guard count > 0 else { return nil }
        header.removeLast(100 - count)
        guard header.count >= 72, header.prefix(16).elementsEqual("SQLite format 3\0".utf8) else {
            throw .storeAccess("\(path) is not a feedcli store (not a SQLite database); left untouched")
        }
        let bytes = header
        // The header stores application_id big-endian at offset 68; 0 means a database that was
        // just being created by another feedcli run (or an empty one).
        let id = bytes[68..<72].reduce(Int32(0)) { $0 << 8 | Int32($1) }
        let pageCount = bytes[28..<32].reduce(0) { $0 << 8 | Int($1) }
        if id != StoreSchema.applicationID, !(id == 0 && pageCount <= 1) {
            throw .storeAccess("\(path) is not a feedcli store (another application's database); left untouched")
        }
        return Header(isWAL: bytes[18] == 2 && bytes[19] == 2)
    }

    /// Refuses a store whose file, journal (`-wal`), shared memory (`-shm`) or lock folder
    /// (`.locks`) exists but is not what it must be (a regular file; a folder): opening a FIFO
    /// blocks until someone writes to it, and a device is no store. Symlinks are followed (a
    /// store reached through one is fine).
    package static func refuseSpecialFiles(_ path: String) throws(FeedFailure) {
        for (file, wantsFolder) in [
            (path, false), (path + "-wal", false), (path + "-shm", false), (path + ".locks", true),
        ] {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            if wantsFolder ? type == S_IFDIR : type == S_IFREG { continue }
            if file == path, type == S_IFDIR { continue }  // said in its own words by the caller
            let what =
                switch type {
                case S_IFIFO: "a FIFO"
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFSOCK: "a socket"
                case S_IFDIR: "a folder"
                default: "a regular file"
                }
            throw .storeAccess(
                "\(file) is \(what), not \(wantsFolder ? "a folder" : "a regular file"); "
                    + "feedcli will not open it as part of a store")
        }
    }

    /// `path` with every symlink resolved (the path itself when that fails).
    package static func resolve(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether this process may write the store: the file and its folder (for the journal).
    package static func isWritable(_ path: String) -> Bool {
        access(path, W_OK) == 0 && access(folder(of: path).isEmpty ? "." : folder(of: path), W_OK) == 0
    }

    /// The folder part of `path` ("" for a bare file name, "/" for a file at the root), as
    /// `NSString.deletingLastPathComponent` gave it.
    package static func folder(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        var folder = trimmed[..<slash]
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        return String(folder)
    }

    /// Whether a non-empty WAL journal exists beside the store.
    package static func hasJournal(_ path: String) -> Bool {
        var info = stat()
        return stat(path + "-wal", &info) == 0 && info.st_size > 0
    }

    /// `text` with every byte outside `[A-Za-z0-9._-]` percent-encoded, so that any feed name is
    /// one harmless file name (no `/`, no `..` of its own: callers add a prefix).
    package static func fileNameSafe(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        // A name in another script encodes to up to nine bytes a character: a 64-character name
        // would pass a file name's 255 bytes. A long one keeps its beginning and a hash of the
        // whole (FNV-1a, 64 bits), still one name per text.
        guard result.utf8.count > 200 else { return result }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return String(result.prefix(180)) + "~" + String(hash, radix: 16)
    }

    /// A path made safe inside a `file:` URI.
    package static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A store error as the failure the user sees.
    package static func failure(_ error: any Error, path: String) -> FeedFailure {
        if let failure = error as? FeedFailure { return failure }
        guard let database = error as? SQLiteError else {
            return .storeAccess("\(path): \(describe(error))")
        }
        switch database.code {
        case SQLITE_BUSY, SQLITE_LOCKED: return .temporary("\(path) is busy in another feedcli run")
        case SQLITE_READONLY: return .storeAccess("the store is read-only: \(path)")
        case SQLITE_FULL: return .storeAccess("the disk is full: \(path) (\(describe(error)))")
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .storeAccess("\(path) is damaged or not a feedcli store")
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: return .storeAccess("cannot open the store: \(path)")
        default: return .storeAccess("\(path): \(describe(error))")
        }
    }

    /// An error in a few words: SQLite's message without the statement, cut short.
    package static func describe(_ error: any Error) -> String {
        Excerpt.of("\(error)", limit: 200)
    }
}
