import FoundationEssentials

/// A JSON value as a server sent it, read by `JSONParser`.
///
/// Two things differ from `JSONSerialization` and `JSONDecoder`, both on purpose:
/// - A number keeps its exact text (`123456789012345678901234567890`, `1.5`, `1e300`): ids are
///   never rounded, so two different ids never become one.
/// - An object keeps every member in order; lookup takes the last member of a name, as jq
///   does, so the fields feedcli reads agree with what `jq .source` shows.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's text, exactly as sent (already checked against the JSON number grammar).
    case number(String)
    case string(String)
    /// A string that Unicode text cannot hold as sent: it has a lone surrogate escape
    /// (`"\ud800"`) or bytes that are not UTF-8. Kept apart from `string` so that an id made of
    /// one stays distinct (`"\ud800"` and `"\ud801"` would both be U+FFFD).
    case inexactString(InexactString)
    case array([JSON])
    case object(JSONObject)

    /// The member `key` of an object (the last one of that name); nil for anything else.
    public subscript(key: String) -> JSON? {
        if case .object(let object) = self { object[key] } else { nil }
    }

    /// The value at a path of member names.
    public subscript(path: [String]) -> JSON? {
        var current: JSON? = self
        for key in path { current = current?[key] }
        return current
    }

    /// A string's value (an inexact one as read, with U+FFFD); nil for anything else.
    public var string: String? {
        switch self {
        case .string(let value): value
        case .inexactString(let value): value.decoded
        default: nil
        }
    }

    /// A string's value or a number's exact text (ids and user ids come both ways).
    public var text: String? {
        switch self {
        case .string(let value): value
        case .inexactString(let value): value.decoded
        case .number(let text): text
        default: nil
        }
    }

    /// An item id by the contract's rule, the same for every kind: a non-blank string as it is,
    /// a number as its exact text; nil (skip the item) for anything else. An inexact string is
    /// its escaped form, so two different ids never become one.
    public var id: String? {
        switch self {
        case .string(let value): value.unicodeScalars.allSatisfy(\.properties.isWhitespace) ? nil : value
        case .inexactString(let value): value.escaped
        case .number(let text): text
        default: nil
        }
    }

    public var array: [JSON]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// What this value is, in words for error messages ("an array", "a string").
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string, .inexactString: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object's members in the order sent, duplicates included; lookup takes the last.
/// Lookup scans from the end: objects in feeds are small, and a reader asks for a handful of
/// names, so the cost stays linear in the input even for a hostile object with many members.
public struct JSONObject: Sendable, Equatable {
    public var members: [(key: String, value: JSON)]

    public init(_ members: [(key: String, value: JSON)] = []) {
        self.members = members
    }

    package mutating func append(key: String, value: JSON) {
        members.append((key, value))
    }

    public subscript(key: String) -> JSON? {
        members.last { $0.key == key }?.value
    }

    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
    }
}
