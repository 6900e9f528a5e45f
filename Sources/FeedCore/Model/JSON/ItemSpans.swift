import FoundationEssentials

/// The elements of a page's item array, each kept as its span of the response body and read
/// again when asked for: eight bytes an item on top of the body, however many items a page holds.
///
/// Built only by `JSONParser.parsePage` from bytes it accepted, so every span is one valid JSON
/// value and reading it again cannot fail.
public struct ItemSpans: Sendable {
    /// Where one element lies in the body: byte offsets from the body's start.
    package struct Span: Sendable, Equatable {
        var start: UInt32
        var end: UInt32
    }

    package let data: Data
    package let spans: [Span]

    public var count: Int { spans.count }

    /// The element at `index` (0-based, in the array's order): its value (the parts
    /// `projection` names) and its compact text (all of it).
    public func element(_ index: Int, _ projection: JSONProjection = .whole) -> JSONParser.Document {
        let bytes = bytes(index)
        return JSONParser.Document(value: value(of: bytes, projection), source: RawJSON(bytes))
    }

    /// The element's value only (the parts `projection` names; no compact text made).
    public func value(_ index: Int, _ projection: JSONProjection = .whole) -> JSON {
        value(of: bytes(index), projection)
    }

    private func value(of bytes: Data, _ projection: JSONProjection) -> JSON {
        // The parser accepted these bytes as one value while reading the page; the fallback
        // only keeps this total.
        (try? JSONParser.value(of: bytes, projection)) ?? .null
    }

    private func bytes(_ index: Int) -> Data {
        let span = spans[index]
        return data[(data.startIndex + Int(span.start))..<(data.startIndex + Int(span.end))]
    }
}
