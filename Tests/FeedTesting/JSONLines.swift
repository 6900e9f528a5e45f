import Foundation

/// JSON Lines output as the tests read it: one object per line (lines that are not objects are
/// skipped), and the entries' ids.
public enum JSONLines {
    public static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    public static func ids(_ text: String) -> [String] {
        objects(text).compactMap { $0["id"] as? String }
    }
}
