import Foundation

/// Decoding of server data with failures that help: the field's path, what was wrong, and a
/// short excerpt of the input, as a `FeedFailure.badData` (exit 65).
enum JSONDecoding {
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, what: String) throws(FeedFailure) -> T {
        guard !data.isEmpty else { throw .badData("\(what): empty body") }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw .badData("\(what): \(describe(error)); input starts \(excerpt(data))")
        } catch {
            throw .badData("\(what): \(error); input starts \(excerpt(data))")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : "field `\(text.hasPrefix(".") ? String(text.dropFirst()) : text)`"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "missing field `\(key.stringValue)`" + (context.codingPath.isEmpty ? "" : " in \(parent)")
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return context.codingPath.isEmpty ? "not valid JSON" + (underlying.map { " (\($0))" } ?? "")
                : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// The first bytes of `data`, one line, control characters escaped, at most 60 characters.
    static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(60), as: UTF8.self)
        let escaped = text.unicodeScalars.map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return "«\(escaped)\(data.count > 60 ? "…" : "")»"
    }
}
