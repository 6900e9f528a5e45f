/// A size as a message says it: "300 bytes", "64 KiB", "14.3 MiB" (binary units, as `--max-size`
/// and `--jq-memory` take them).
public enum ByteCount {
    public static func of(_ bytes: Int) -> String {
        let units: [(String, Int)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        guard let (name, size) = units.first(where: { bytes >= $0.1 }) else {
            return bytes == 1 ? "1 byte" : "\(bytes) bytes"
        }
        let tenths = (bytes / (size / 10 > 0 ? size / 10 : 1))
        return tenths % 10 == 0 ? "\(tenths / 10) \(name)" : "\(tenths / 10).\(tenths % 10) \(name)"
    }
}
