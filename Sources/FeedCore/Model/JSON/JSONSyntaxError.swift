import FoundationEssentials

/// Why bytes are not JSON, and where (a byte offset into the body).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}
