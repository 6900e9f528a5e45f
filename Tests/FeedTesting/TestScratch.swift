import Foundation
import Glibc

/// The test process's scratch folder: every temporary store, home and file of a test lives in it,
/// and it is removed when the process exits, so a run leaves nothing behind in /tmp.
public enum TestScratch {
    /// `/tmp/feedcli-tests-PID`, made on first use; its removal is registered at the same time.
    public static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedcli-tests-\(getpid())")
        try? FileManager.default.removeItem(at: root)  // a previous process of the same pid
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestScratch.root) }
        return root
    }()

    /// A new folder path under the root (not created: a store's folder must be made by feedcli,
    /// and some tests check that a command creates none).
    public static func folder(_ purpose: String) -> URL {
        root.appendingPathComponent("\(purpose)-\(UUID().uuidString)")
    }
}
