import FeedHTTP
import FeedModel
import FoundationEssentials
import Glibc

/// Reading a response as the document a feed kind promises, with failures in feed terms: what
/// was expected, what came instead, and (when the data fits another kind) which kind it looks
/// like. Never a programming language's type names; at most a short excerpt of the body.
package enum FeedDocument {
    /// Parses `response`'s body as one document, building the parts `projection` names.
    package static func parse(
        _ response: HTTPResponse, what: String, _ projection: JSONProjection = .whole
    ) throws(FeedFailure) -> JSONParser.Document {
        try reading(response, what: what) { () throws(JSONSyntaxError) in
            try JSONParser.parse(response.body, projection)
        }
    }

    /// Parses `response`'s body as a page whose items are the array at `items`; of the rest,
    /// what `rest` names is built (a kind's `pageProjection`: what it reads, and what
    /// `FeedShape` reads for its hints, joined once).
    package static func parsePage(
        _ response: HTTPResponse, items: JSONParser.ItemArray, rest: JSONProjection, what: String
    ) throws(FeedFailure) -> JSONParser.PageDocument {
        try reading(response, what: what) { () throws(JSONSyntaxError) in
            try JSONParser.parsePage(response.body, items: items, rest: rest)
        }
    }

    private static func reading<Parsed>(
        _ response: HTTPResponse, what: String, _ parse: () throws(JSONSyntaxError) -> Parsed
    ) throws(FeedFailure) -> Parsed {
        guard !response.body.isEmpty else { throw .badData("\(what): the body is empty") }
        do {
            return try parse()
        } catch {
            throw .badData("\(what): \(error.description); it starts \(Excerpt.of(response.body))")
        }
    }

    /// The failure for a document of the wrong shape: "expected a JSON Feed object with `items`;
    /// got an array (this looks like a linked page: use --kind linked)". `value` needs only the
    /// parts `FeedShape.projection` names; the members it lists are read from `body`.
    package static func wrongShape(
        _ value: JSON, body: Data, expected: String, kind: FeedKind, what: String, arrayMember: String? = nil
    ) -> FeedFailure {
        if let arrayMember, let member = value[arrayMember], member.array == nil {
            return .badData(
                "\(what): expected \(expected); its `\(arrayMember)` is \(member.kindDescription), not an array")
        }
        var message = "\(what): expected \(expected); got \(value.kindDescription)"
        if case .object = value, let names = JSONParser.memberNames(of: body, limit: 7) {
            let keys = names.prefix(6).map { "`\(Excerpt.of($0, limit: 24))`" }.joined(separator: ", ")
            message += keys.isEmpty ? " with no members" : " with \(keys)\(names.count > 6 ? ", …" : "")"
        }
        if let other = FeedShape.guess(value), other != kind {
            message += " (this looks like \(other.describedAs): use --kind \(other.rawValue))"
        }
        return .badData(message)
    }
}

/// Which kind a document looks like, from its shape alone (for `feeds add` without `--kind`,
/// and for hints when a feed's data does not fit its kind).
package enum FeedShape {
    /// The parts of a document `guess` reads.
    package static let projection = JSONProjection.parts([
        "kind": .kindOnly, "data": .parts(["children": .kindOnly]), "topic_list": .parts(["topics": .kindOnly]),
        "hits": .kindOnly, "nbHits": .kindOnly, "posts": .parts([:], first: .members(["post", "creator", "uri"])),
        "latest_posts": .parts([:], first: .members(["topic_id", "post_number"])),
        "feed": .parts([:], first: .parts(["post": .members(["uri"])])), "version": .kindOnly, "items": .kindOnly,
        "quota_max": .kindOnly, "has_more": .kindOnly, "id": .kindOnly,
    ])

    package static func guess(_ value: JSON) -> FeedKind? {
        switch value {
        case .object(let object):
            if let preset = preset(object) { return preset }
            if let version = object["version"]?.string, version.contains("jsonfeed.org"), object["items"]?.array != nil
            {
                return .jsonfeed
            }
            if object["data"]?.array != nil { return .graph }
            if object["id"]?.id != nil { return .indexed }
            return nil
        case .array:
            return .linked
        default:
            return nil
        }
    }

    /// The preset whose API answers with this object's shape.
    private static func preset(_ object: JSONObject) -> FeedKind? {
        if object["kind"]?.string == "Listing", object["data"]?["children"]?.array != nil { return .reddit }
        if object["topic_list"]?["topics"]?.array != nil { return .discourse }
        if let first = object["latest_posts"]?.array?.first, first["topic_id"] != nil, first["post_number"] != nil {
            return .discourse
        }
        if object["hits"]?.array != nil, object["nbHits"] != nil { return .hn }
        if let first = object["posts"]?.array?.first, first["post"] != nil, first["creator"] != nil { return .lemmy }
        if let first = object["feed"]?.array?.first, first[["post", "uri"]]?.string?.hasPrefix("at://") == true {
            return .bluesky
        }
        // getQuotes, searchPosts, getPosts: the posts themselves.
        if let first = object["posts"]?.array?.first, first["uri"]?.string?.hasPrefix("at://") == true {
            return .bluesky
        }
        if object["items"]?.array != nil, object["quota_max"] != nil || object["has_more"] != nil {
            return .stackexchange
        }
        return nil
    }
}

extension FeedKind {
    /// The kind in words: "a JSON Feed", "a Graph page".
    package var describedAs: String {
        switch self {
        case .indexed: "a single post (an indexed feed)"
        case .graph: "a Graph page"
        case .jsonfeed: "a JSON Feed"
        case .linked: "a linked page (a JSON array)"
        case .json: "JSON read by jq expressions"
        case .sse: "a stream of Server-Sent Events"
        case .ndjson: "a stream of JSON lines"
        case .jetstream: "a Bluesky Jetstream (WebSocket)"
        case .nostr: "a Nostr relay (WebSocket)"
        case .reddit, .bluesky, .discourse, .hn, .lemmy, .stackexchange, .mastodon, .wikimedia:
            preset?.describedAs ?? rawValue
        }
    }
}
