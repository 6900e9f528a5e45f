import FeedModel
import FoundationEssentials

/// What a server says about its own refusal, when it says it plainly: a JSON error body's
/// message (`{"message": …}`, `{"error": …}` or `{"error": {"message": …}}`,
/// `error_description`, `detail`, `title`, `errors[0].message`), or a short plain-text body.
/// A 400 from an API ("Profile not found") tells the user more than the status does. HTML error
/// pages say nothing worth a line. Shown as an excerpt, never whole.
package enum ServerMessage {
    package static func of(_ body: Data) -> String? {
        guard !body.isEmpty, body.count <= 64 * 1024 else { return nil }
        if let value = try? JSONParser.parse(body).value {
            let candidates: [JSON?] = [
                value["message"], value["error_description"], value["error"]?["message"], value["error"],
                value["detail"], value["title"], Self.first(of: value["errors"])?["message"],
            ]
            guard let text = candidates.lazy.compactMap({ $0?.string }).first(where: { !$0.allSatisfy(\.isWhitespace) })
            else { return nil }
            return Excerpt.of(text, limit: 120)
        }
        guard body.count <= 300, let text = String(data: body, encoding: .utf8), !text.contains("<") else { return nil }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingWhitespace() ?? ""
        return line.isEmpty ? nil : Excerpt.of(line, limit: 120)
    }

    private static func first(of value: JSON?) -> JSON? {
        if case .array(let values)? = value { values.first } else { nil }
    }
}
