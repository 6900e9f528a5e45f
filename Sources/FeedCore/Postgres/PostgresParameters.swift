/// A statement's parameters as libpq takes them: a pointer, a length and a format (0 text,
/// 1 binary) for each, valid while `withArrays` runs.
///
/// Small values are copied into one buffer, text NUL-terminated as libpq reads it. A large one
/// (a huge entry's text and source) is lent in place: libpq reads the string's own UTF-8, so
/// that it is held by its entry and once more in libpq's output buffer, never also in copies
/// made for the call (`--max-size` plus a bounded backlog is the whole of a stream's memory).
/// A NUL inside text cannot be sent as text: it becomes U+FFFD (names, URLs and messages never
/// hold one; entry text goes as bytes).
struct PostgresParameters {
    private let parameters: [PostgresValue]

    /// The size from which a value is lent rather than copied: lending nests one closure per
    /// value, so only the few large ones are lent (a statement holds a thousand small ones).
    static let lentFrom = 64 * 1024

    init(_ parameters: [PostgresValue]) {
        self.parameters = parameters
    }

    /// Calls `body` with the count and the arrays of pointers, lengths and formats.
    func withArrays<T, E: Error>(
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws(E)
            -> T
    ) throws(E) -> T {
        var copied: [UInt8] = []
        var offsets = [Int?](repeating: nil, count: parameters.count)
        var lengths = [Int32](repeating: 0, count: parameters.count)
        var formats = [Int32](repeating: 0, count: parameters.count)
        var lent: [Int] = []
        for (index, parameter) in parameters.enumerated() {
            switch parameter {
            case .null:
                continue
            case .text(let text):
                // libpq reads a text value up to its NUL; the length is said all the same.
                lengths[index] = Int32(clamping: text.utf8.count)
                if text.utf8.count >= Self.lentFrom {
                    lent.append(index)
                    continue
                }
                offsets[index] = copied.count
                copied.append(contentsOf: Self.withoutNUL(text).utf8)
                copied.append(0)
            case .bytes(let text):
                formats[index] = 1
                lengths[index] = Int32(clamping: text.utf8.count)
                if text.utf8.count >= Self.lentFrom {
                    lent.append(index)
                    continue
                }
                offsets[index] = copied.count
                copied.append(contentsOf: text.utf8)
            }
        }
        // A non-null pointer even for an empty value at the end (a null one is SQL NULL).
        copied.append(0)
        let result = copied.withUnsafeBufferPointer { buffer -> Result<T, E> in
            var pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                guard let offset, let base = buffer.baseAddress else { return nil }
                return UnsafeRawPointer(base + offset).assumingMemoryBound(to: CChar.self)
            }
            return lending(lent[...], into: &pointers) { pointers in
                Result { () throws(E) in
                    try pointers.withUnsafeBufferPointer { pointers throws(E) in
                        try lengths.withUnsafeBufferPointer { lengths throws(E) in
                            try formats.withUnsafeBufferPointer { formats throws(E) in
                                try body(
                                    Int32(parameters.count), pointers.baseAddress, lengths.baseAddress,
                                    formats.baseAddress)
                            }
                        }
                    }
                }
            }
        }
        return try result.get()
    }

    /// Sets the pointers of the parameters at `indices` to their strings' own bytes, each lent
    /// for the length of its closure, and calls `body` inside the last.
    private func lending<R>(
        _ indices: ArraySlice<Int>, into pointers: inout [UnsafePointer<CChar>?],
        _ body: ([UnsafePointer<CChar>?]) -> R
    ) -> R {
        guard let index = indices.first else { return body(pointers) }
        let rest = indices.dropFirst()
        switch parameters[index] {
        case .null:
            return lending(rest, into: &pointers, body)
        case .text(let text):
            // Native text is NUL-terminated where it lies: no copy.
            return Self.withoutNUL(text).withCString { chars in
                pointers[index] = chars
                return lending(rest, into: &pointers, body)
            }
        case .bytes(var text):
            return text.withUTF8 { bytes in
                pointers[index] = bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
                return lending(rest, into: &pointers, body)
            }
        }
    }

    /// `text` with any NUL made U+FFFD (text parameters end at a NUL).
    private static func withoutNUL(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacing("\u{0}", with: "\u{FFFD}") : text
    }
}
