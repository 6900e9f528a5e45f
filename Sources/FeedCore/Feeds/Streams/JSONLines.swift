import FoundationEssentials

/// Newline-delimited JSON (`application/x-ndjson`, `application/jsonl`), fed the bytes of a
/// response as they come: one value a line, lines ended by LF (a CR before it is dropped), blank
/// lines skipped. A line longer than `maxLineSize` is dropped and reported as `oversized`; a last
/// line without its LF when the stream ends is discarded, as an unfinished SSE event is.
package struct JSONLineParser: Sendable {
    package enum Output: Sendable, Equatable {
        case line([UInt8])
        case oversized
    }

    package let maxLineSize: Int
    private var line: [UInt8] = []
    private var overflowed = false

    package init(maxLineSize: Int = 16 * 1024 * 1024) {
        self.maxLineSize = maxLineSize
    }

    /// Parses `bytes`, the next part of the stream; the lines it completed, in order.
    package mutating func parse(_ bytes: some Collection<UInt8>) -> [Output] {
        var outputs: [Output] = []
        for byte in bytes {
            guard byte == 0x0A else {
                if line.count < maxLineSize { line.append(byte) } else { overflowed = true }
                continue
            }
            if overflowed {
                outputs.append(.oversized)
            } else {
                if line.last == 0x0D { line.removeLast() }
                if line.contains(where: { !Self.isBlank($0) }) { outputs.append(.line(line)) }
            }
            line.removeAll(keepingCapacity: line.count <= 4096)
            overflowed = false
        }
        return outputs
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D
    }
}
