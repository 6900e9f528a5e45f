import FoundationEssentials

/// Appends JSON to a byte buffer by hand: fixed key order, raw `source` embedding, and speed
/// (listing 100,000 entries must beat `jq`). Strings are escaped per RFC 8259.
package struct JSONWriter {
    package var bytes: [UInt8] = []

    package init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Makes room for `more` bytes at once when they do not fit: a huge value written by
    /// doubling held its old and new buffers together, half again its size. What is reserved
    /// at least doubles the room, so reserving before each of many small values stays linear.
    package mutating func reserve(_ more: Int) {
        let needed = bytes.count.addingReportingOverflow(more)
        guard !needed.overflow, needed.partialValue > bytes.capacity else { return }
        bytes.reserveCapacity(max(needed.partialValue, bytes.capacity * 2))
    }

    package mutating func string(_ text: String?) {
        guard var text else { return raw("null") }
        bytes.append(UInt8(ascii: "\""))
        text.makeContiguousUTF8()
        text.utf8.withContiguousStorageIfAvailable { utf8 in
            // Runs of bytes that need no escaping are copied at once.
            var runStart = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                escape(byte)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }

    package mutating func number(_ value: Int?) {
        guard let value else { return raw("null") }
        raw(String(value))
    }

    package mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    /// `[e,…]`: each of `elements` written by `write`, in order.
    package mutating func array<Element>(_ elements: [Element], _ write: (inout JSONWriter, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `["s",…]`.
    package mutating func strings(_ values: [String]) {
        array(values) { writer, value in writer.string(value) }
    }

    /// `{"k":v,…}` with keys in the given order.
    package mutating func object(_ fields: [(String, (inout JSONWriter) -> Void)]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(field.0)
            bytes.append(UInt8(ascii: ":"))
            field.1(&self)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension JSONWriter {
    /// An inexact string as JSON text that keeps its lone surrogates as the escapes the server
    /// sent (`\ud800`), read back from its escaped form; a byte that was not UTF-8 (`\xHH`)
    /// cannot be JSON text and is written as U+FFFD.
    package mutating func inexactString(_ text: InexactString) {
        var plain: [UInt8] = []
        var output: [UInt8] = [UInt8(ascii: "\"")]
        func flush(_ writer: inout JSONWriter) {
            guard !plain.isEmpty else { return }
            var quoted = JSONWriter(capacity: plain.count + 2)
            quoted.string(String(decoding: plain, as: UTF8.self))
            output += quoted.bytes.dropFirst().dropLast()
            plain.removeAll(keepingCapacity: true)
        }
        let escaped = Array(text.escaped.utf8)
        var index = 0
        while index < escaped.count {
            let byte = escaped[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < escaped.count else {
                plain.append(byte)
                index += 1
                continue
            }
            switch escaped[index + 1] {
            case UInt8(ascii: "u") where index + 6 <= escaped.count:
                flush(&self)
                output += escaped[index..<index + 6]
                index += 6
            case UInt8(ascii: "x") where index + 4 <= escaped.count:
                plain += Array("\u{FFFD}".utf8)
                index += 4
            default:  // a doubled backslash: one backslash of the text
                plain.append(UInt8(ascii: "\\"))
                index += 2
            }
        }
        flush(&self)
        output.append(UInt8(ascii: "\""))
        bytes += output
    }

    /// `value` as compact JSON: members in the order sent (duplicates too), numbers as their
    /// exact text. For items that a jq expression picks out of a response, whose raw text the
    /// parser did not capture; only string escapes may differ from what the server sent.
    package mutating func value(_ value: JSON) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): bool(flag)
        case .number(let text): raw(text)
        case .string(let text): string(text)
        case .inexactString(let text): inexactString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                self.value(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(member.key)
                bytes.append(UInt8(ascii: ":"))
                self.value(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

extension RawJSON {
    /// `value` written as compact JSON text (see `JSONWriter.value`).
    package init(_ value: JSON) {
        var writer = JSONWriter()
        writer.value(value)
        self.init(compactText: String(decoding: writer.bytes, as: UTF8.self))
    }
}
