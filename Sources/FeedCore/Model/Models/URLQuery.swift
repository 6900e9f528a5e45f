import FoundationEssentials

/// Reading and setting one query parameter of a URL, for cursors and page numbers that an API
/// takes as `?after=…` or `?page=…`. The rest of the URL is kept as it is.
package enum URLQuery {
    /// `url` with query parameter `name` set to `value` (percent-encoded), replacing every
    /// earlier value of that name, or added at the end.
    package static func setting(_ name: String, to value: String, in url: String) -> String {
        let (beforeFragment, fragment) = split(url, at: "#")
        let (path, query) = split(beforeFragment, at: "?")
        var parameters = query.map { $0.split(separator: "&", omittingEmptySubsequences: true).map(String.init) } ?? []
        parameters.removeAll { parameterName($0) == name }
        parameters.append("\(encode(name))=\(encode(value))")
        return path + "?" + parameters.joined(separator: "&") + (fragment.map { "#" + $0 } ?? "")
    }

    /// The (first) value of query parameter `name` in `url`, percent-decoded.
    package static func value(of name: String, in url: String) -> String? {
        let (path, _) = split(url, at: "#")
        guard let query = split(path, at: "?").1 else { return nil }
        for parameter in query.split(separator: "&") where parameterName(String(parameter)) == name {
            let value = parameter.drop { $0 != "=" }.dropFirst()
            return decode(String(value))
        }
        return nil
    }

    private static func split(_ text: String, at separator: Character) -> (String, String?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (String(text[..<index]), String(text[text.index(after: index)...]))
    }

    private static func parameterName(_ parameter: String) -> String {
        decode(String(parameter.prefix { $0 != "=" }))
    }

    /// Percent-encoding of everything but RFC 3986's unreserved characters.
    package static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded += "%"
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return encoded
    }

    private static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next() {
                if let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                    bytes.append(value)
                } else {
                    bytes.append(contentsOf: [byte, high, low])
                }
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? 0x20 : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
