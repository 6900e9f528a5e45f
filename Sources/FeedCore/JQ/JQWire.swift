import FeedModel
import FoundationEssentials

/// What feedcli and its jq worker (`JQWorkerMain`) say to each other over their socket: one
/// request, then one reply, each a frame of a 4-byte little-endian length and that many bytes.
///
/// The worker is feedcli's own code, but it runs expressions from anywhere on pages from anywhere,
/// and it can die half way through a reply: every byte it sends is read as untrusted. Decoding
/// never traps; a reply that does not decode is the worker's failure ("sent a reply feedcli
/// cannot read"), never feedcli's crash (fuzzed: the `jq-wire` target).
package enum JQRequest: Equatable, Sendable {
    /// Does `expression` compile? (`feeds add`, `feeds set`, `feeds import`.)
    case check(String)
    /// The expressions of a `json` feed (or a preset) on one page.
    case map(JQMapRequest)
    /// `--filter` on each item's source text: does its first output pass?
    case filter(expression: String, items: [String])
}

/// One page and the expressions a `json` feed reads it with. Every expression is answered by
/// the paths it names when it names simple paths, else by its values (`JQOutcome`), so feedcli
/// can read the values at those paths from its own exact parse of the page.
package struct JQMapRequest: Equatable, Sendable {
    /// The page as JSON text jq 1.6 can read (lone surrogate escapes replaced, `JSONText`).
    package var page: String
    /// `--items`, run on the page.
    package var items: String
    /// The most items it may give as paths into the page (more fails the page).
    package var itemLimit: Int
    /// The most items it may build (values, not paths: `range(1e6) | {id: .}` makes a page of
    /// 300 bytes a million items); more fails the page.
    package var builtItemLimit: Int
    /// The field expressions (`--id`, `--title`, …), each run on every item that is an object.
    package var fields: [String]
    /// The expressions run on the page itself (`--next-url`, `--cursor`).
    package var pageExpressions: [String]

    package init(
        page: String, items: String, itemLimit: Int, builtItemLimit: Int, fields: [String], pageExpressions: [String]
    ) {
        self.page = page
        self.items = items
        self.itemLimit = itemLimit
        self.builtItemLimit = builtItemLimit
        self.fields = fields
        self.pageExpressions = pageExpressions
    }
}

/// What one expression gave on one value.
package enum JQOutcome: Equatable, Sendable {
    /// The paths its outputs are at (`["data","children",0]`), as jq's compact JSON.
    case paths([String], more: Bool)
    /// Its outputs as compact JSON texts: the expression builds values (`"\(.a)-\(.b)"`).
    case values([String], more: Bool)
    /// jq's error.
    case failed(String)
}

package enum JQReply: Equatable, Sendable {
    /// The compile error, or nil when it compiles.
    case checked(String?)
    /// `--items`' outcome, each item's field outcomes (in the request's order; none for an item
    /// that is not an object), and the page expressions' outcomes.
    case mapped(items: JQOutcome, fields: [[JQOutcome]], page: [JQOutcome])
    /// Whether each item passed.
    case filtered([Bool])
    /// The filter failed on the item at `position` (0-based).
    case filterFailed(position: Int, message: String)
    /// jq's library is missing in the worker.
    case unavailable(String)
}

/// The frames' encoding: tags, lengths and strings, little-endian.
package enum JQWire {
    /// A frame's most bytes: a page is at most `--max-size`, and the worker's memory is bounded.
    package static let frameLimit = Int(UInt32.max)

    package struct Malformed: Error {}

    // MARK: requests

    package static func encode(_ request: JQRequest) -> [UInt8] {
        var writer = Writer()
        switch request {
        case .check(let expression):
            writer.byte(1)
            writer.string(expression)
        case .map(let map):
            writer.byte(2)
            writer.string(map.page)
            writer.string(map.items)
            writer.integer(map.itemLimit)
            writer.integer(map.builtItemLimit)
            writer.strings(map.fields)
            writer.strings(map.pageExpressions)
        case .filter(let expression, let items):
            writer.byte(3)
            writer.string(expression)
            writer.strings(items)
        }
        return writer.bytes
    }

    package static func request(from bytes: [UInt8]) throws(Malformed) -> JQRequest {
        var reader = Reader(bytes)
        let request: JQRequest
        switch try reader.byte() {
        case 1: request = .check(try reader.string())
        case 2:
            request = .map(
                JQMapRequest(
                    page: try reader.string(), items: try reader.string(), itemLimit: try reader.integer(),
                    builtItemLimit: try reader.integer(), fields: try reader.strings(),
                    pageExpressions: try reader.strings()))
        case 3: request = .filter(expression: try reader.string(), items: try reader.strings())
        default: throw Malformed()
        }
        try reader.end()
        return request
    }

    // MARK: replies

    package static func encode(_ reply: JQReply) -> [UInt8] {
        var writer = Writer()
        switch reply {
        case .checked(let error):
            writer.byte(1)
            writer.optionalString(error)
        case .mapped(let items, let fields, let page):
            writer.byte(2)
            writer.outcome(items)
            writer.count(fields.count)
            for item in fields {
                writer.count(item.count)
                item.forEach { writer.outcome($0) }
            }
            writer.count(page.count)
            page.forEach { writer.outcome($0) }
        case .filtered(let passes):
            writer.byte(3)
            writer.count(passes.count)
            passes.forEach { writer.byte($0 ? 1 : 0) }
        case .filterFailed(let position, let message):
            writer.byte(4)
            writer.integer(position)
            writer.string(message)
        case .unavailable(let message):
            writer.byte(5)
            writer.string(message)
        }
        return writer.bytes
    }

    package static func reply(from bytes: [UInt8]) throws(Malformed) -> JQReply {
        var reader = Reader(bytes)
        let reply: JQReply
        switch try reader.byte() {
        case 1: reply = .checked(try reader.optionalString())
        case 2:
            let items = try reader.outcome()
            var fields: [[JQOutcome]] = []
            for _ in 0..<(try reader.count()) {
                var outcomes: [JQOutcome] = []
                for _ in 0..<(try reader.count()) { outcomes.append(try reader.outcome()) }
                fields.append(outcomes)
            }
            var page: [JQOutcome] = []
            for _ in 0..<(try reader.count()) { page.append(try reader.outcome()) }
            reply = .mapped(items: items, fields: fields, page: page)
        case 3:
            var passes: [Bool] = []
            for _ in 0..<(try reader.count()) {
                switch try reader.byte() {
                case 0: passes.append(false)
                case 1: passes.append(true)
                default: throw Malformed()
                }
            }
            reply = .filtered(passes)
        case 4: reply = .filterFailed(position: try reader.integer(), message: try reader.string())
        case 5: reply = .unavailable(try reader.string())
        default: throw Malformed()
        }
        try reader.end()
        return reply
    }

    // MARK: the encoding

    package struct Writer {
        var bytes: [UInt8] = []

        mutating func byte(_ value: UInt8) { bytes.append(value) }

        mutating func count(_ value: Int) {
            let clamped = UInt32(clamping: value)
            withUnsafeBytes(of: clamped.littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func integer(_ value: Int) {
            withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func string(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                count(utf8.count)
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func optionalString(_ value: String?) {
            guard let value else { return byte(0) }
            byte(1)
            string(value)
        }

        mutating func strings(_ values: [String]) {
            count(values.count)
            values.forEach { string($0) }
        }

        mutating func outcome(_ outcome: JQOutcome) {
            switch outcome {
            case .paths(let texts, let more):
                byte(more ? 2 : 1)
                strings(texts)
            case .values(let texts, let more):
                byte(more ? 4 : 3)
                strings(texts)
            case .failed(let message):
                byte(5)
                string(message)
            }
        }
    }

    /// Reads what `Writer` wrote; every read checks that the bytes are there.
    package struct Reader {
        private let bytes: [UInt8]
        private var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw Malformed() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func count() throws(Malformed) -> Int {
            let value = Int(try fixed(UInt32.self))
            // Every counted element takes at least one byte: a count past the bytes left is a lie.
            guard value <= bytes.count - offset else { throw Malformed() }
            return value
        }

        mutating func integer() throws(Malformed) -> Int {
            let value = try fixed(Int64.self)
            guard let exact = Int(exactly: value) else { throw Malformed() }
            return exact
        }

        mutating func string() throws(Malformed) -> String {
            let length = try count()
            defer { offset += length }
            return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
        }

        mutating func optionalString() throws(Malformed) -> String? {
            switch try byte() {
            case 0: return nil
            case 1: return try string()
            default: throw Malformed()
            }
        }

        mutating func strings() throws(Malformed) -> [String] {
            var values: [String] = []
            for _ in 0..<(try count()) { values.append(try string()) }
            return values
        }

        mutating func outcome() throws(Malformed) -> JQOutcome {
            switch try byte() {
            case 1: return .paths(try strings(), more: false)
            case 2: return .paths(try strings(), more: true)
            case 3: return .values(try strings(), more: false)
            case 4: return .values(try strings(), more: true)
            case 5: return .failed(try string())
            default: throw Malformed()
            }
        }

        func end() throws(Malformed) {
            guard offset == bytes.count else { throw Malformed() }
        }

        private mutating func fixed<T: FixedWidthInteger>(_: T.Type) throws(Malformed) -> T {
            let size = MemoryLayout<T>.size
            guard bytes.count - offset >= size else { throw Malformed() }
            var value = T.zero
            for index in 0..<size { value |= T(truncatingIfNeeded: bytes[offset + index]) << (8 * index) }
            offset += size
            return value
        }
    }
}
