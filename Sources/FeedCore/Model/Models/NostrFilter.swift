import FoundationEssentials

/// What a `nostr` feed asks its relay for (`feeds add --kind nostr`): the NIP-01 filter of its
/// one `REQ`, less `since`, which each connection works out from what is stored.
public struct NostrFilter: Sendable, Equatable {
    /// Public keys in hex (`--author`, repeatable); empty: anyone's.
    public var authors: [String]
    /// Event kinds (`--nostr-kind`, repeatable); the contract's default is `[1]`, text notes.
    public var kinds: [Int]
    /// Tag filters (`--tag NAME=VALUE`, repeatable): `#NAME` in the filter, the values of one
    /// name together, as NIP-01 reads them (any of the values).
    public var tags: [Tag]
    /// How far back the first connection asks, before anything is stored (`--since`, default 1d).
    public var since: Duration

    public struct Tag: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public static let defaultKinds = [1]
    public static let defaultSince: Duration = .seconds(86_400)

    public init(authors: [String] = [], kinds: [Int] = defaultKinds, tags: [Tag] = [], since: Duration = defaultSince) {
        self.authors = authors
        self.kinds = kinds
        self.tags = tags
        self.since = since
    }

    /// Why `key` cannot be an author's public key (64 hex digits); nil when it can.
    public static func whyNotAPublicKey(_ key: String) -> String? {
        let utf8 = Array(key.utf8)
        let isHex = utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0)
        }
        return utf8.count == 64 && isHex ? nil : "--author of a nostr feed is a public key as 64 hex digits, not \(key)"
    }

    /// `NAME=VALUE` read as a tag filter; nil when it is not one (a one-letter name, as NIP-01
    /// indexes only those).
    public static func tag(_ text: String) -> Tag? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard name.count == 1, name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic && $0.isASCII }),
            !value.isEmpty
        else { return nil }
        return Tag(name: name, value: value)
    }

    // MARK: stored form

    /// The stored form, one JSON object (a member of the feed's stored expressions).
    package func write(to writer: inout JSONWriter) {
        writer.object([
            ("authors", { $0.strings(authors) }),
            ("kinds", { $0.array(kinds) { writer, kind in writer.number(kind) } }),
            ("tags", { $0.array(tags) { writer, tag in writer.strings([tag.name, tag.value]) } }),
            ("since", { $0.number(Int(since.components.seconds)) }),
        ])
    }

    /// Reads the stored form back; nil when `json` is not one.
    package init?(stored json: JSON) {
        guard case .object = json else { return nil }
        authors = json["authors"]?.array?.compactMap(\.string) ?? []
        kinds = json["kinds"]?.array?.compactMap { $0.text.flatMap { Int($0) } } ?? Self.defaultKinds
        tags =
            json["tags"]?.array?.compactMap { pair in
                guard let parts = pair.array?.compactMap(\.string), parts.count == 2 else { return nil }
                return Tag(name: parts[0], value: parts[1])
            } ?? []
        since = .seconds(json["since"]?.text.flatMap { Int64($0) } ?? Self.defaultSince.components.seconds)
    }
}
