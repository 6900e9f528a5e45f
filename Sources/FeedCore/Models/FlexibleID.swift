import Foundation

/// An item id as feeds send it: a string, or a number that becomes a string ("1", not "1.0").
/// Anything else, or a blank string, decodes as `nil` so the item can be skipped instead of
/// failing the page.
struct FlexibleID: Decodable, Sendable, Equatable {
    let value: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : text
        } else if let number = try? container.decode(Int64.self) {
            value = String(number)
        } else if let number = try? container.decode(Double.self), number.isFinite {
            value = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        } else {
            value = nil
        }
    }
}
