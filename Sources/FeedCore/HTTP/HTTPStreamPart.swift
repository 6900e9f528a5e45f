import FoundationEssentials

/// What a streaming GET (`HTTPClient.stream`) emits: the response's head once, before any body
/// byte (for any status), then the body's bytes in the chunks they arrived in.
public enum HTTPStreamPart: Sendable, Equatable {
    /// Status, headers, effective URL and `Retry-After`; the body is empty.
    case head(HTTPResponse)
    /// Bytes as they came; the receipt (when the client counts what is unread, `StreamBacklog`)
    /// is let go with them once they are read.
    case bytes([UInt8], receipt: StreamReceipt? = nil)
}
