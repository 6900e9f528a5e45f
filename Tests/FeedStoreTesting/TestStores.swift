import FeedModel
import FeedStore
import FeedStoreContract
import FeedTesting
import Foundation

/// A fresh store path in its own temporary folder, inside the test process's scratch folder
/// (removed when the process exits).
public func temporaryStorePath(_ name: String = "feedcli.sqlite") -> String {
    TestScratch.folder("store").appendingPathComponent(name).path
}

extension Entry {
    public static func sample(_ id: String, feed: String = "posts", read: Bool = false) -> Entry {
        Entry(
            feed: feed, id: id, title: "title \(id)", text: "text \(id)", author: "1",
            fetchedAt: "2026-11-21T19:00:00Z", read: read,
            source: RawJSON(compactText: #"{"id":\#(id)}"#))
    }
}

/// Writes `contents` at `path`, creating its folder; for stores that are not what they seem.
public func writeFile(_ path: String, _ contents: Data) throws {
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent,
        withIntermediateDirectories: true)
    try contents.write(to: URL(fileURLWithPath: path))
}

/// Runs `sql` on the SQLite store at `path` through Python's sqlite3, as a hand edit (or another
/// program) would, outside feedcli's own code; whether it succeeded.
public func editStore(at path: String, _ sql: String) async throws -> Bool {
    let edit = Process()
    edit.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    edit.arguments = [
        "python3", "-c",
        """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1]); db.executescript(sys.argv[2]); db.commit()
        """, path, sql,
    ]
    try await edit.runToExit()
    return edit.terminationStatus == 0
}
