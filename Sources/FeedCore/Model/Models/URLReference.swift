import FoundationEssentials

/// A URL reference as a server writes one (a next-page link, an item's link): resolved against
/// the URL of the document it came from, as RFC 3986 §5 says.
public enum URLReference {
    /// `reference` resolved against `base`; nil when it cannot be.
    public static func resolve(_ reference: String, against base: String) -> String? {
        guard let baseURL = URL(string: base) else { return URL(string: reference)?.absoluteString }
        return URL(string: reference, relativeTo: baseURL)?.absoluteURL.absoluteString
    }
}
