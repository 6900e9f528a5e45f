/// The elements of a page's item array, each kept as its span of the response body and read
/// again when asked for: eight bytes an item on top of the body, however many items a page holds.
///
/// Built only by `JSONParser.parsePage` from bytes it accepted, so every span is one valid JSON
/// value and reading it again cannot fail.
public struct ItemSpans: Sendable {
    /// Where one element lies in the body: byte offsets from the body's start.
    struct Span: Sendable, Equatable {
        var start: UInt32
        var end: UInt32
    }

    let data: Data
    let spans: [Span]

    public var count: Int { spans.count }

    /// The element at `index` (0-based, in the array's order): its value and its compact text.
    public func element(_ index: Int) -> JSONParser.Document {
        // The parser accepted these bytes as one value while reading the page; the fallback
        // only keeps this total.
        (try? JSONParser.parse(bytes(index))) ?? JSONParser.Document(value: .null, source: RawJSON(compactText: "null"))
    }

    /// The element's value only (no compact text made), for a first look at each item.
    public func value(_ index: Int) -> JSON {
        (try? JSONParser.value(of: bytes(index))) ?? .null
    }

    private func bytes(_ index: Int) -> Data {
        let span = spans[index]
        return data[(data.startIndex + Int(span.start))..<(data.startIndex + Int(span.end))]
    }
}
