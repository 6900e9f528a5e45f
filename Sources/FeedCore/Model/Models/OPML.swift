import FoundationEssentials

/// OPML 2.0 subscription lists, as every feed reader exchanges them: what `feeds export --opml`
/// writes and `feeds import` reads.
///
/// Reading takes every `<outline>` that has an `xmlUrl`, or feedcli's own `feedcli:feedUrl` (folders are flattened: feedcli's feeds
/// have no folders), with its attributes, entities decoded. It is a small reader for this one
/// shape, not a general XML parser: comments, processing instructions, a doctype and CDATA are
/// skipped; an `<outline>` tag that does not parse, or a document whose first element is not
/// `<opml>`, is an error with the byte offset. Any input ends in outlines or an error, never a
/// trap (it is fuzzed).
public enum OPML {
    /// feedcli's own attributes on an outline, so that a round trip keeps what OPML has no word
    /// for: the feed's name, kind, token variable, `--every` and jq expressions. They are in
    /// feedcli's XML namespace (`feedcli:name`, bound to `namespace` on the root), as OPML 2.0
    /// allows and the W3C validator requires; files of feedcli 0.2.0's first builds wrote them
    /// without one (`feedcliName`), which is still read.
    public enum Attribute: String, CaseIterable, Sendable {
        case name, kind, tokenEnv, every, expressions, keep, remember
        /// The URL of a feed other readers cannot read, written instead of `xmlUrl` (not `url`:
        /// newsboat, through libxml2, reads an attribute named `url` in any namespace).
        case feedURL = "feedUrl"

        /// The name written: `feedcli:name`.
        public var qualifiedName: String { OPML.prefix + ":" + rawValue }
        /// The name files written before the namespace used: `feedcliName`.
        var legacyName: String { OPML.prefix + rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    }

    /// feedcli's namespace for its attributes, and the prefix it binds.
    public static let namespace = "tag:feedcli,2026:opml"
    public static let prefix = "feedcli"

    /// An outline's feed URL: its `xmlUrl`, else feedcli's own `feedcli:feedUrl` (where feedcli writes
    /// the URL of a feed only it reads: newsboat subscribes to any `xmlUrl` or `url` whatever the
    /// outline's `type` says, then fails on it at every reload).
    public static func feedURL(in outline: [String: String]) -> String? {
        outline["xmlUrl"] ?? value(.feedURL, in: outline)
    }

    /// The value of one of feedcli's attributes on an outline, under either of its names.
    public static func value(_ attribute: Attribute, in outline: [String: String]) -> String? {
        outline[attribute.qualifiedName] ?? outline[attribute.legacyName]
    }

    /// The attributes of each `<outline>` with an `xmlUrl` or a `feedcli:feedUrl`, in document order.
    public static func feedOutlines(in text: String) throws(OPMLError) -> [[String: String]] {
        var reader = Reader(bytes: Array(text.utf8))
        return try reader.outlines()
    }

    /// A feed name made from an outline's title (`Daring Fireball` → `Daring-Fireball`,
    /// `日本語のブログ` as it is): the characters a feed name may hold, others as `-`, at most 64;
    /// nil when nothing is left.
    public static func feedName(from title: String) -> String? {
        var name = ""
        for scalar in title.unicodeScalars {
            if scalar == "-" {
                if !name.hasSuffix("-") { name += "-" }  // `a - b` is `a-b`, one separator
            } else if FeedRegistration.isNameScalar(scalar) {
                name.unicodeScalars.append(scalar)
            } else if !name.hasSuffix("-") {
                name += "-"
            }
        }
        while name.hasPrefix("-") || name.hasPrefix(".") { name.removeFirst() }
        while name.hasSuffix("-") { name.removeLast() }
        name = String(name.prefix(FeedRegistration.nameLengthLimit))
        return FeedRegistration.isValidName(name) ? name : nil
    }
}

/// Why a file is not an OPML document feedcli can read, and where (a byte offset).
public struct OPMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}

private struct Reader {
    let bytes: [UInt8]
    var position = 0
    var sawRoot = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func fail(_ reason: String) -> OPMLError {
        OPMLError(offset: position, reason: reason)
    }

    private func starts(with text: String, at offset: Int) -> Bool {
        let pattern = Array(text.utf8)
        return offset + pattern.count <= bytes.count && Array(bytes[offset..<(offset + pattern.count)]) == pattern
    }

    /// Moves past `end`, or fails when the document ends first.
    private mutating func skip(past end: String, what: String) throws(OPMLError) {
        while position < bytes.count {
            if starts(with: end, at: position) {
                position += end.utf8.count
                return
            }
            position += 1
        }
        throw fail("the document ends inside \(what)")
    }

    mutating func outlines() throws(OPMLError) -> [[String: String]] {
        var found: [[String: String]] = []
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "<") else {
                position += 1
                continue
            }
            if starts(with: "<!--", at: position) {
                try skip(past: "-->", what: "a comment")
            } else if starts(with: "<![CDATA[", at: position) {
                try skip(past: "]]>", what: "a CDATA section")
            } else if starts(with: "<?", at: position) {
                try skip(past: "?>", what: "a processing instruction")
            } else if starts(with: "<!", at: position) || starts(with: "</", at: position) {
                try skip(past: ">", what: "a tag")
            } else {
                position += 1
                let name = self.name()
                guard !name.isEmpty else { throw fail("a `<` that starts no tag") }
                if !sawRoot {
                    guard name == "opml" else {
                        throw fail("not an OPML document: its first element is <\(name)>, not <opml>")
                    }
                    sawRoot = true
                }
                let attributes = try self.attributes()
                if name == "outline", let url = OPML.feedURL(in: attributes), !url.isEmpty { found.append(attributes) }
            }
        }
        guard sawRoot else { throw fail("not an OPML document: it has no <opml> element") }
        return found
    }

    private mutating func name() -> String {
        let start = position
        while position < bytes.count, !Self.isBlank(bytes[position]), bytes[position] != UInt8(ascii: ">"),
            bytes[position] != UInt8(ascii: "/")
        {
            position += 1
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A tag's attributes up to its `>` (or `/>`); the last of a repeated name wins.
    private mutating func attributes() throws(OPMLError) -> [String: String] {
        var attributes: [String: String] = [:]
        while true {
            while position < bytes.count, Self.isBlank(bytes[position]) { position += 1 }
            guard position < bytes.count else { throw fail("the document ends inside a tag") }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                return attributes
            }
            if starts(with: "/>", at: position) {
                position += 2
                return attributes
            }
            let start = position
            while position < bytes.count, !Self.isBlank(bytes[position]), bytes[position] != UInt8(ascii: "="),
                bytes[position] != UInt8(ascii: ">"), bytes[position] != UInt8(ascii: "/")
            {
                position += 1
            }
            let name = String(decoding: bytes[start..<position], as: UTF8.self)
            guard !name.isEmpty else { throw fail("an attribute without a name") }
            while position < bytes.count, Self.isBlank(bytes[position]) { position += 1 }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                throw fail("the attribute \(Excerpt.of(name, limit: 40)) has no value")
            }
            position += 1
            while position < bytes.count, Self.isBlank(bytes[position]) { position += 1 }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'")
            else {
                throw fail("the value of \(Excerpt.of(name, limit: 40)) is not quoted")
            }
            let quote = bytes[position]
            position += 1
            let valueStart = position
            while position < bytes.count, bytes[position] != quote { position += 1 }
            guard position < bytes.count else { throw fail("the document ends inside an attribute value") }
            attributes[name] = Self.decodingEntities(bytes[valueStart..<position])
            position += 1
        }
    }

    /// An attribute value with XML's five entities and character references decoded (anything
    /// else kept as written), and its blanks as XML normalises them: each a space.
    private static func decodingEntities(_ value: ArraySlice<UInt8>) -> String {
        let text = String(decoding: value, as: UTF8.self)
        guard text.contains("&") || text.contains(where: { $0 == "\n" || $0 == "\t" || $0 == "\r" }) else {
            return text
        }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += normalized(rest[..<ampersand])
            let after = rest[rest.index(after: ampersand)...]
            guard let semicolon = after.prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = after
                continue
            }
            let entity = after[..<semicolon]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                if let scalar = characterReference(entity) {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += "&" + entity + ";"
                }
            }
            rest = after[after.index(after: semicolon)...]
        }
        return result + normalized(rest)
    }

    private static func normalized(_ text: Substring) -> String {
        String(text.map { $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }

    /// `#10` or `#x1F600` as its scalar; nil for anything else (or a value that is no scalar).
    private static func characterReference(_ entity: Substring) -> Unicode.Scalar? {
        guard entity.first == "#" else { return nil }
        let digits = entity.dropFirst()
        let value: UInt32? =
            digits.first == "x" || digits.first == "X"
            ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        return value.flatMap(Unicode.Scalar.init)
    }
}
