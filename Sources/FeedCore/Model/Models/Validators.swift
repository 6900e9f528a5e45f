import FoundationEssentials

/// HTTP cache validators of a feed's first page, sent back as `If-None-Match` /
/// `If-Modified-Since`.
public struct Validators: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    public var isEmpty: Bool { etag == nil && lastModified == nil }
}
